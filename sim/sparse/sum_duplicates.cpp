#include <algorithm>

#include "sim/sparse/storage.h"

namespace treesim::sparse {

Coo sum_duplicates(const Coo& coo) {
  // Stable: duplicates meet in file order, so their sum is the one build() makes. Files list their
  // entries by row or by column, so the sort is by counting on rows, then each row on its own.
  Coo out{coo.rows, coo.cols, {}};
  const auto by_col = [](const Triple& a, const Triple& b) { return a.col < b.col; };
  std::vector<std::uint64_t> start(coo.rows + 1, 0);
  bool by_row = true;
  for (std::size_t i = 0; i < coo.entries.size(); ++i) {
    ++start[coo.entries[i].row + 1];
    if (i > 0 && coo.entries[i].row < coo.entries[i - 1].row) by_row = false;
  }
  for (std::uint64_t r = 0; r < coo.rows; ++r) start[r + 1] += start[r];
  if (by_row) {
    out.entries = coo.entries;
  } else {
    out.entries.resize(coo.entries.size());
    std::vector<std::uint64_t> next(start.begin(), start.end() - 1);
    for (const Triple& t : coo.entries) out.entries[next[t.row]++] = t;
  }
  for (std::uint64_t r = 0; r < coo.rows; ++r) {
    const auto lo = out.entries.begin() + static_cast<std::ptrdiff_t>(start[r]);
    const auto hi = out.entries.begin() + static_cast<std::ptrdiff_t>(start[r + 1]);
    if (!std::is_sorted(lo, hi, by_col)) std::stable_sort(lo, hi, by_col);
  }
  std::size_t n = 0;
  for (std::size_t i = 0; i < out.entries.size(); ++i) {
    if (n > 0 && out.entries[n - 1].row == out.entries[i].row && out.entries[n - 1].col == out.entries[i].col)
      out.entries[n - 1].value += out.entries[i].value;
    else
      out.entries[n++] = out.entries[i];
  }
  out.entries.resize(n);
  return out;
}

}  // namespace treesim::sparse
