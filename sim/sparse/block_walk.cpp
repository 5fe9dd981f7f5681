// The walk a PE does over its block: down the levels from the root, as MLIR's sparse iteration
// does, counting the entries and segments it visits (its work) and handing every entry inside the
// matrix to the multiply.
#include "sim/sparse/pe_block.h"
#include "sim/sparse/walk.h"

namespace treesim::sparse {

WalkWork walk_work(const SparseMatrix& m) {
  return walk_levels(m, [](std::uint64_t, std::uint64_t, std::uint64_t) {});
}

WalkWork multiply_block(const SparseMatrix& a, const std::int8_t* b, std::uint64_t n, std::int32_t b_zero,
                        std::int32_t* y) {
  return walk_levels(a, [&](std::uint64_t row, std::uint64_t col, std::uint64_t q) {
    const auto v = static_cast<std::int32_t>(a.values[q]);
    for (std::uint64_t j = 0; j < n; ++j) {
      const std::int32_t term = v * (static_cast<std::int32_t>(b[col * n + j]) - b_zero);
      std::int32_t& acc = y[row * n + j];
      acc = static_cast<std::int32_t>(static_cast<std::uint32_t>(acc) + static_cast<std::uint32_t>(term));
    }
  });
}

}  // namespace treesim::sparse
