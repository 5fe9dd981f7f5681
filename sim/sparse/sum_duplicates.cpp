#include <algorithm>

#include "sim/sparse/storage.h"

namespace treesim::sparse {

Coo sum_duplicates(const Coo& coo) {
  Coo out{coo.rows, coo.cols, coo.entries};
  // Stable: duplicates meet in file order, so their sum is the one build() makes.
  std::stable_sort(out.entries.begin(), out.entries.end(), [](const Triple& a, const Triple& b) {
    return a.row != b.row ? a.row < b.row : a.col < b.col;
  });
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
