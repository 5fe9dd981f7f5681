// METIS graphs: "N M [FMT [NCON]]", then one line per vertex with its optional size and weights
// and its 1-based neighbours (each followed by an edge weight when FMT says so). Read as the
// adjacency pattern: A(v, u) = 1 for each neighbour u of v.
#include <fmt/format.h>

#include "sim/core/echo.h"
#include "sim/sparse/matrix_file.h"
#include "sim/sparse/sparse_error.h"
#include "sim/sparse/text_lines.h"

namespace treesim::sparse {

MatrixFile read_metis_graph(const std::string& text, const std::string& name) {
  TextLines lines(text);
  const auto fail = [&](const std::string& what) {
    throw SparseError(fmt::format("{}:{}: {}", name, lines.line(), what));
  };
  const auto next = [&]() -> std::optional<std::string_view> {
    while (auto l = lines.next())
      if (l->empty() || (*l)[0] != '%') return l;
    return std::nullopt;
  };
  std::optional<std::string_view> head;
  while ((head = next()) && split_words(*head).empty()) {
  }
  if (!head) fail("expected the header 'VERTICES EDGES [FMT [NCON]]', got the end of the file");
  const auto h = split_words(*head);
  if (h.size() < 2 || h.size() > 4) fail("expected the header 'VERTICES EDGES [FMT [NCON]]'");
  const auto n = parse_uint(h[0]), m = parse_uint(h[1]);
  if (!n || !m || *n == 0 || *n > kMaxMatrixDim || *m > kMaxMatrixEntries / 2)
    fail(fmt::format("expected 1..{} vertices and up to {} edges", kMaxMatrixDim, kMaxMatrixEntries / 2));
  std::string fmt_digits = h.size() > 2 ? std::string(h[2]) : "0";
  if (fmt_digits.size() > 3 || fmt_digits.find_first_not_of("01") != std::string::npos)
    fail(fmt::format("expected FMT of up to three 0/1 digits, got '{}'", core::echo(h[2])));
  fmt_digits = std::string(3 - fmt_digits.size(), '0') + fmt_digits;
  const bool vsize = fmt_digits[0] == '1', vwgt = fmt_digits[1] == '1', ewgt = fmt_digits[2] == '1';
  const auto ncon = h.size() > 3 ? parse_uint(h[3]) : std::optional<std::uint64_t>(1);
  if (!ncon || *ncon == 0 || *ncon > 64) fail("expected NCON 1..64");

  MatrixFile f{{*n, *n, {}}, "graph", true};
  if (const std::string e = declared_size_error(*n, *n, 2 * *m); !e.empty()) fail(e);
  // At most an entry per two bytes of the text: a header's count is not trusted with memory.
  f.coo.entries.reserve(std::min<std::uint64_t>(2 * *m, text.size() / 2 + 1));
  std::vector<std::string_view> w;  // one line's words, reused
  for (std::uint64_t v = 0; v < *n; ++v) {
    const auto l = next();
    if (!l) fail(fmt::format("expected {} vertex lines, got {} before the end of the file", *n, v));
    split_words(*l, w);
    const std::size_t skip = (vsize ? 1 : 0) + (vwgt ? *ncon : 0);
    if (w.size() < skip || (ewgt && (w.size() - skip) % 2 != 0))
      fail(fmt::format("vertex {}: expected {}sizes, weights and neighbours", v + 1,
                       ewgt ? "(neighbour, weight) pairs after " : ""));
    for (std::size_t k = skip; k < w.size(); k += ewgt ? 2 : 1) {
      const auto u = parse_uint(w[k]);
      if (!u || *u == 0 || *u > *n)
        fail(fmt::format("vertex {}: expected a neighbour 1..{}, got '{}'", v + 1, *n, core::echo(w[k])));
      if (f.coo.entries.size() == 2 * *m)
        fail(fmt::format("more adjacencies than the header's 2 x {} edges", *m));
      f.coo.entries.push_back({v, *u - 1, 1.0});
    }
  }
  if (f.coo.entries.size() != 2 * *m)
    fail(fmt::format("expected 2 x {} = {} adjacencies (each edge listed by both vertices), got {}", *m,
                     2 * *m, f.coo.entries.size()));
  return f;
}

}  // namespace treesim::sparse
