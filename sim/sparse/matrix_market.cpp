// Matrix Market: the banner names the layout (coordinate or array), the field (real, integer,
// pattern) and the symmetry (general, symmetric, skew-symmetric); entries are 1-based, arrays
// column-major, and a symmetric file holds one triangle that is mirrored here.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "sim/core/echo.h"
#include "sim/sparse/matrix_file.h"
#include "sim/sparse/sparse_error.h"
#include "sim/sparse/text_lines.h"

namespace treesim::sparse {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct MatrixMarketReader {
  const std::string& name;
  TextLines lines;

  [[noreturn]] void fail(const std::string& what) const {
    throw SparseError(fmt::format("{}:{}: {}", name, lines.line(), what));
  }
  std::vector<std::string_view> buffer;  // one line's words, reused (no allocation per entry)
  // The words of the next line that is not a comment or blank; null at the end.
  const std::vector<std::string_view>* words() {
    while (auto l = lines.next()) {
      if (!l->empty() && (*l)[0] == '%') continue;
      split_words(*l, buffer);
      if (!buffer.empty()) return &buffer;
    }
    return nullptr;
  }
  std::uint64_t index(std::string_view w, std::uint64_t size, const char* what) {
    const auto v = parse_uint(w);
    if (!v || *v == 0 || *v > size)
      fail(fmt::format("expected a {} index 1..{}, got '{}'", what, size, core::echo(w)));
    return *v - 1;
  }
  double value(std::string_view w, bool integer) {
    if (integer) {
      const auto v = parse_int(w);
      if (!v || *v < -(std::int64_t{1} << 53) || *v > (std::int64_t{1} << 53))
        fail(fmt::format("expected an integer value, got '{}'", core::echo(w)));
      return static_cast<double>(*v);
    }
    const auto v = parse_real(w);
    if (!v) fail(fmt::format("expected a real value, got '{}'", core::echo(w)));
    return *v;
  }
};

}  // namespace

MatrixFile read_matrix_market(const std::string& text, const std::string& name) {
  MatrixMarketReader r{name, TextLines(text), {}};
  const auto banner = r.lines.next();
  const auto b = banner ? split_words(*banner) : std::vector<std::string_view>{};
  if (b.size() != 5 || lower(b[0]) != "%%matrixmarket" || lower(b[1]) != "matrix")
    r.fail(
        "expected the banner '%%MatrixMarket matrix coordinate|array real|integer|pattern "
        "general|symmetric|skew-symmetric'");
  const std::string layout = lower(b[2]), field = lower(b[3]), symmetry = lower(b[4]);
  if (layout != "coordinate" && layout != "array")
    r.fail(fmt::format("expected coordinate or array, got '{}'", core::echo(b[2])));
  if (field != "real" && field != "integer" && field != "pattern" && field != "double")
    r.fail(fmt::format("expected the field real, integer or pattern, got '{}' (complex is not supported)",
                       core::echo(b[3])));
  if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric")
    r.fail(fmt::format("expected general, symmetric or skew-symmetric, got '{}' (hermitian is not supported)",
                       core::echo(b[4])));
  const bool pattern = field == "pattern", integer = field == "integer", array = layout == "array";
  if (pattern && array) r.fail("an array matrix cannot be a pattern");
  const bool sym = symmetry == "symmetric", skew = symmetry == "skew-symmetric";

  const auto* size_line = r.words();
  if (!size_line) r.fail("expected the size line, got the end of the file");
  const std::vector<std::string_view> size_words = *size_line;  // words() reuses its buffer
  const auto* size = &size_words;
  if (size->size() != (array ? 2u : 3u))
    r.fail(array ? "expected the size line 'ROWS COLS'" : "expected the size line 'ROWS COLS ENTRIES'");
  const auto rows = parse_uint((*size)[0]), cols = parse_uint((*size)[1]);
  if (!rows || !cols || *rows == 0 || *cols == 0 || *rows > kMaxMatrixDim || *cols > kMaxMatrixDim)
    r.fail(fmt::format("expected rows and columns 1..{}, got '{}' '{}'", kMaxMatrixDim,
                       core::echo((*size)[0]), core::echo((*size)[1])));
  if ((sym || skew) && *rows != *cols)
    r.fail(fmt::format("a {} matrix must be square, got {}x{}", symmetry, *rows, *cols));
  std::uint64_t count = 0;
  if (array) {
    if (sym)
      count = *rows * (*rows + 1) / 2;
    else if (skew)
      count = *rows * (*rows - 1) / 2;
    else
      count = *rows * *cols;
  } else {
    const auto n = parse_uint((*size)[2]);
    if (!n) r.fail(fmt::format("expected the number of entries, got '{}'", core::echo((*size)[2])));
    count = *n;
  }
  if (count > kMaxMatrixEntries)
    r.fail(fmt::format("{} entries is more than the {} supported", count, kMaxMatrixEntries));
  if (const std::string e = declared_size_error(*rows, *cols, count); !e.empty()) r.fail(e);

  MatrixFile f{{*rows, *cols, {}}, fmt::format("{} {} {}", layout, field, symmetry), pattern};
  auto& e = f.coo.entries;
  e.reserve(std::min<std::uint64_t>(count * (sym || skew ? 2 : 1), text.size() / 2 + 1));
  const auto add = [&](std::uint64_t i, std::uint64_t j, double v) {
    if ((sym || skew) && j > i)
      r.fail(fmt::format("entry ({}, {}) is above the diagonal of a {} file (expected the lower triangle)",
                         i + 1, j + 1, symmetry));
    if (skew && i == j)
      r.fail(fmt::format("entry ({}, {}) is on the diagonal of a skew-symmetric file", i + 1, j + 1));
    if (array && v == 0) return;
    e.push_back({i, j, v});
    if ((sym || skew) && i != j) e.push_back({j, i, skew ? -v : v});
  };
  if (array) {
    // Column-major; one triangle (the diagonal too unless skew) for symmetric files.
    std::uint64_t i = 0, j = 0;
    if (skew) i = 1;
    for (std::uint64_t k = 0; k < count; ++k) {
      const auto w = r.words();
      if (!w) r.fail(fmt::format("expected {} values, got {} before the end of the file", count, k));
      if (w->size() != 1) r.fail("expected one value per line");
      add(i, j, r.value((*w)[0], integer));
      if (++i == *rows) ++j, i = sym ? j : skew ? j + 1 : 0;
    }
  } else {
    const std::size_t want = pattern ? 2 : 3;
    for (std::uint64_t k = 0; k < count; ++k) {
      const auto w = r.words();
      if (!w) r.fail(fmt::format("expected {} entries, got {} before the end of the file", count, k));
      if (w->size() != want)
        r.fail(fmt::format("expected {} per line, got {} words", pattern ? "'ROW COL'" : "'ROW COL VALUE'",
                           w->size()));
      const std::uint64_t i = r.index((*w)[0], *rows, "row"), j = r.index((*w)[1], *cols, "column");
      add(i, j, pattern ? 1.0 : r.value((*w)[2], integer));
    }
  }
  if (r.words())
    r.fail(fmt::format("expected the end of the file after {} {}", count, array ? "values" : "entries"));
  return f;
}

}  // namespace treesim::sparse
