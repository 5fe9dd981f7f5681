#include "sim/sparse/storage.h"

namespace treesim::sparse {

std::vector<std::uint64_t> row_entries(const Coo& coo) {
  std::vector<std::uint64_t> n(coo.rows, 0);
  for (const Triple& t : coo.entries) ++n[t.row];
  return n;
}

}  // namespace treesim::sparse
