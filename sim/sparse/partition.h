// Splitting a stored matrix's work over P processing elements, the three ways the SpMV / SpMM
// kernels will offer: equal row ranges, row ranges of balanced stored entries, or a 2-D grid of
// row × column blocks. Lock-step SIMD PEs take as long as the busiest, so the figures that
// matter are the per-PE entry counts, the imbalance (max / mean) and the MAC slots left idle.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/sparse/storage.h"

namespace treesim::sparse {

enum class Partition { kRows, kNnz, k2d };

// "rows", "nnz", "2d"; nullopt-like false for another word.
bool parse_partition(const std::string& text, Partition& out);
std::string partition_name(Partition p);

struct PartitionStats {
  std::vector<std::uint64_t> per_pe;  // stored entries each PE walks
  std::uint64_t total = 0, min = 0, max = 0;
  double mean = 0;
  double imbalance = 0;          // max / mean (1 = perfectly balanced; 0 when there is no work)
  std::uint64_t idle_slots = 0;  // pes × max − total: MAC slots idle while the busiest PE works
  std::uint64_t grid_rows = 1, grid_cols = 1;  // 2d: the PE grid (rows: pes × 1)
};

// The PE that owns entry (row, col) of a rows × cols matrix split `p` ways over `pes` PEs;
// `row_starts` (pes + 1 entries) are the nnz partition's row boundaries (row_bounds()).
struct PartitionMap {
  Partition kind = Partition::kRows;
  std::uint64_t pes = 1, rows = 0, cols = 0;
  std::uint64_t grid_rows = 1, grid_cols = 1;
  std::vector<std::uint64_t> row_starts;
  std::uint64_t owner(std::uint64_t row, std::uint64_t col) const;
};

// The split of `m`'s stored entries (padding left out, in-block zeros counted: a PE walks them).
PartitionMap make_partition(const SparseMatrix& m, Partition kind, std::uint64_t pes);
PartitionStats partition_stats(const SparseMatrix& m, const PartitionMap& map);

}  // namespace treesim::sparse
