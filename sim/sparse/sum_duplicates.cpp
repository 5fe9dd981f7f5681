#include <algorithm>

#include "sim/sparse/storage.h"

namespace treesim::sparse {

Coo sum_duplicates(Coo coo) {
  // Stable: duplicates meet in file order, so their sum is the one build() makes. Files list their
  // entries by row or by column, so the sort is by counting on rows, then each row on its own.
  const auto by_col = [](const Triple& a, const Triple& b) { return a.col < b.col; };
  const std::vector<std::uint64_t> counts = row_entries(coo);
  std::vector<std::uint64_t> start(coo.rows + 1, 0);
  for (std::uint64_t r = 0; r < coo.rows; ++r) start[r + 1] = start[r] + counts[r];
  bool by_row = true;
  for (std::size_t i = 1; i < coo.entries.size() && by_row; ++i)
    by_row = coo.entries[i].row >= coo.entries[i - 1].row;
  if (!by_row) {
    std::vector<Triple> sorted(coo.entries.size());
    std::vector<std::uint64_t> next(start.begin(), start.end() - 1);
    for (const Triple& t : coo.entries) sorted[next[t.row]++] = t;
    coo.entries = std::move(sorted);
  }
  for (std::uint64_t r = 0; r < coo.rows; ++r) {
    const auto lo = coo.entries.begin() + static_cast<std::ptrdiff_t>(start[r]);
    const auto hi = coo.entries.begin() + static_cast<std::ptrdiff_t>(start[r + 1]);
    if (std::is_sorted(lo, hi, by_col)) continue;
    if (hi - lo > 32) {
      std::stable_sort(lo, hi, by_col);
      continue;
    }
    // A short row: insertion sort, stable and with no buffer to allocate (std::stable_sort's).
    for (auto it = lo + 1; it < hi; ++it) {
      const Triple t = *it;
      auto at = it;
      for (; at > lo && t.col < (at - 1)->col; --at) *at = *(at - 1);
      *at = t;
    }
  }
  std::size_t n = 0;
  for (std::size_t i = 0; i < coo.entries.size(); ++i) {
    if (n > 0 && coo.entries[n - 1].row == coo.entries[i].row && coo.entries[n - 1].col == coo.entries[i].col)
      coo.entries[n - 1].value += coo.entries[i].value;
    else
      coo.entries[n++] = coo.entries[i];
  }
  coo.entries.resize(n);
  return coo;
}

}  // namespace treesim::sparse
