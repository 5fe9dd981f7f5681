#include "sim/sparse/prune.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace treesim::sparse {

std::uint64_t prune_n_of_m(Coo& a, std::uint64_t n, std::uint64_t m) {
  auto block_order = [m](const Triple& x, const Triple& y) {
    // Within a (row, block): the largest magnitude first, then the lower column.
    return std::make_tuple(x.row, x.col / m, -std::fabs(x.value), x.col) <
           std::make_tuple(y.row, y.col / m, -std::fabs(y.value), y.col);
  };
  std::sort(a.entries.begin(), a.entries.end(), block_order);
  std::vector<Triple> kept;
  kept.reserve(a.entries.size());
  std::uint64_t in_block = 0;
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    const Triple& t = a.entries[i];
    const bool same = i > 0 && a.entries[i - 1].row == t.row && a.entries[i - 1].col / m == t.col / m;
    in_block = same ? in_block + 1 : 0;
    if (in_block < n) kept.push_back(t);
  }
  const std::uint64_t dropped = a.entries.size() - kept.size();
  std::sort(kept.begin(), kept.end(),
            [](const Triple& x, const Triple& y) { return std::tie(x.row, x.col) < std::tie(y.row, y.col); });
  a.entries = std::move(kept);
  return dropped;
}

}  // namespace treesim::sparse
