// Harwell-Boeing: a four- or five-line header (title, card counts, type and sizes, Fortran
// formats), then column pointers, row indices and values in fixed-width fields whose widths
// the formats give. Assembled matrices only: real or pattern, unsymmetric, symmetric or skew.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "sim/core/echo.h"
#include "sim/sparse/matrix_file.h"
#include "sim/sparse/sparse_error.h"
#include "sim/sparse/text_lines.h"

namespace treesim::sparse {
namespace {

// A Fortran format such as (16I5), (5E15.8), (1P5E16.8), (3D21.15): fields per line and width.
struct FortranFormat {
  std::size_t per_line = 0, width = 0;
};

struct Reader {
  const std::string& name;
  TextLines lines;
  std::uint64_t text_bytes = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw SparseError(fmt::format("{}:{}: {}", name, lines.line(), what));
  }
  std::string_view line(const char* what) {
    const auto l = lines.next();
    if (!l) fail(fmt::format("expected {}, got the end of the file", what));
    return *l;
  }

  FortranFormat format(std::string_view text, const char* which) {
    std::string s;
    for (char c : text)
      if (!std::isspace(static_cast<unsigned char>(c)))
        s += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const auto bad = [&] {
      fail(fmt::format("expected a Fortran format like (16I5) or (5E15.8) for {}, got '{}'", which,
                       core::echo(text)));
    };
    if (s.size() < 4 || s.front() != '(' || s.back() != ')') bad();
    s = s.substr(1, s.size() - 2);
    if (const auto p = s.find('P'); p != std::string::npos)
      s = s.substr(p + 1);  // scale factor: no effect on input
    const auto letter = s.find_first_of("IEDFG");
    if (letter == std::string::npos || letter == 0) bad();
    const auto n = parse_uint(std::string_view(s).substr(0, letter));
    const std::string rest = s.substr(letter + 1);
    const auto w = parse_uint(std::string_view(rest).substr(0, rest.find('.')));
    if (!n || !w || *n == 0 || *w == 0 || *n > 1000 || *w > 100) bad();
    return {*n, *w};
  }

  // `count` fixed-width fields over `cards` lines.
  std::vector<std::string_view> fields(const FortranFormat& f, std::uint64_t count, const char* what) {
    std::vector<std::string_view> out;
    // At most a field per byte of the text: a header's count is not trusted with memory.
    out.reserve(std::min<std::uint64_t>(count, text_bytes + 1));
    while (out.size() < count) {
      const std::string_view l = line(what);
      for (std::size_t k = 0; k < f.per_line && out.size() < count; ++k) {
        if (k * f.width >= l.size()) break;
        std::string_view field = l.substr(k * f.width, f.width);
        const auto w = split_words(field);
        if (w.size() != 1)
          fail(fmt::format("expected {} in field {} ({} characters), got '{}'", what, k + 1, f.width,
                           core::echo(field)));
        out.push_back(w[0]);
      }
    }
    return out;
  }
};

}  // namespace

MatrixFile read_harwell_boeing(const std::string& text, const std::string& name) {
  Reader r{name, TextLines(text), text.size()};
  r.line("the title line");
  const auto counts = split_words(r.line("the card counts"));
  if (counts.size() < 4) r.fail("expected the card counts 'TOTCRD PTRCRD INDCRD VALCRD [RHSCRD]'");
  const auto val_cards = parse_uint(counts[3]);
  const auto rhs_cards = counts.size() > 4 ? parse_uint(counts[4]) : std::optional<std::uint64_t>(0);
  if (!val_cards || !rhs_cards) r.fail("expected numbers in the card counts");
  const std::string_view type_line = r.line("the type line");
  const auto t = split_words(type_line);
  if (t.size() < 4 || t[0].size() != 3) r.fail("expected the type line 'MXTYPE NROW NCOL NNZERO'");
  std::string type(t[0]);
  for (char& c : type) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (type[0] != 'R' && type[0] != 'P')
    r.fail(fmt::format(
        "expected a real (R) or pattern (P) matrix, got type '{}' (complex and integer are not supported)",
        core::echo(t[0])));
  if (type[1] != 'U' && type[1] != 'S' && type[1] != 'Z' && type[1] != 'R')
    r.fail(fmt::format("expected symmetry U, S, Z or R, got type '{}'", core::echo(t[0])));
  if (type[2] != 'A')
    r.fail(fmt::format("expected an assembled matrix (A), got type '{}'", core::echo(t[0])));
  const auto rows = parse_uint(t[1]), cols = parse_uint(t[2]), nnz = parse_uint(t[3]);
  if (!rows || !cols || !nnz || *rows == 0 || *cols == 0 || *rows > kMaxMatrixDim || *cols > kMaxMatrixDim)
    r.fail("expected positive NROW and NCOL and a count NNZERO");
  if (*nnz > kMaxMatrixEntries)
    r.fail(fmt::format("{} entries is more than the {} supported", *nnz, kMaxMatrixEntries));
  if (const std::string e = declared_size_error(*rows, *cols, *nnz); !e.empty()) r.fail(e);
  const bool sym = type[1] == 'S', skew = type[1] == 'Z', pattern = type[0] == 'P';
  if ((sym || skew) && *rows != *cols) r.fail("a symmetric matrix must be square");
  const std::string_view fmts = r.line("the format line");
  const auto piece = [&](std::size_t at, std::size_t len) {
    return at < fmts.size() ? fmts.substr(at, len) : std::string_view();
  };
  const FortranFormat ptr_f = r.format(piece(0, 16), "the pointers"),
                      ind_f = r.format(piece(16, 16), "the indices");
  const FortranFormat val_f =
      pattern || *val_cards == 0 ? FortranFormat{1, 1} : r.format(piece(32, 20), "the values");
  if (*rhs_cards > 0) r.line("the right-hand side line");

  MatrixFile f{{*rows, *cols, {}}, type, pattern};
  std::vector<std::uint64_t> ptr;
  for (auto w : r.fields(ptr_f, *cols + 1, "a column pointer")) {
    const auto v = parse_uint(w);
    if (!v || *v == 0 || *v > *nnz + 1)
      r.fail(fmt::format("expected a column pointer 1..{}, got '{}'", *nnz + 1, core::echo(w)));
    if (!ptr.empty() && *v - 1 < ptr.back())
      r.fail(fmt::format("column pointer {} is less than the one before ({}); expected non-decreasing", *v,
                         ptr.back() + 1));
    ptr.push_back(*v - 1);
  }
  if (ptr.front() != 0 || ptr.back() != *nnz)
    r.fail(fmt::format("expected column pointers from 1 to NNZERO + 1 = {}, got {} to {}", *nnz + 1,
                       ptr.front() + 1, ptr.back() + 1));
  std::vector<std::uint64_t> ind;
  for (auto w : r.fields(ind_f, *nnz, "a row index")) {
    const auto v = parse_uint(w);
    if (!v || *v == 0 || *v > *rows)
      r.fail(fmt::format("expected a row index 1..{}, got '{}'", *rows, core::echo(w)));
    ind.push_back(*v - 1);
  }
  std::vector<double> val(*nnz, 1.0);
  if (!pattern && *val_cards > 0) {
    std::size_t k = 0;
    for (auto w : r.fields(val_f, *nnz, "a value")) {
      const auto v = parse_real(w);
      if (!v) r.fail(fmt::format("expected a real value, got '{}'", core::echo(w)));
      val[k++] = *v;
    }
  }
  auto& e = f.coo.entries;
  for (std::uint64_t j = 0; j < *cols; ++j)
    for (std::uint64_t q = ptr[j]; q < ptr[j + 1]; ++q) {
      const std::uint64_t i = ind[q];
      if ((sym || skew) && i < j)
        throw SparseError(fmt::format(
            "{}: entry ({}, {}) is above the diagonal of a symmetric matrix (expected the lower triangle)",
            name, i + 1, j + 1));
      e.push_back({i, j, val[q]});
      if ((sym || skew) && i != j) e.push_back({j, i, skew ? -val[q] : val[q]});
    }
  return f;
}

}  // namespace treesim::sparse
