// The rules that split a sparse matrix's rows over P processing elements, the three ways the SpMV /
// SpMM kernels offer: `rows` (row ranges of ⌈R/P⌉ or ⌊R/P⌋ rows, the longer ones first), `nnz`
// (row ranges of balanced work: each row weighs its entries plus one, the segment a CSR walk reads
// even for an empty row) and `2d` (a grid of row ranges × column ranges). The kernels' loader
// (kernels/spmv) applies them; lock-step SIMD PEs take as long as the busiest, so the figures that
// matter are the per-PE counts, the imbalance (max / mean) and the MAC slots left idle.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace treesim::sparse {

enum class Partition { kRows, kNnz, k2d };

// "rows", "nnz", "2d"; false for another word.
bool parse_partition(const std::string& text, Partition& out);
std::string partition_name(Partition p);

// `parts` + 1 row boundaries (part k holds rows [b[k], b[k+1])) of a matrix whose row r holds
// row_entries[r] entries. kRows and k2d: ⌈R/P⌉ rows to each of the first R mod P parts, ⌊R/P⌋ to the
// rest, so no part is empty while R ≥ P. kNnz: each row weighs its entries + 1, and the split is the
// one whose heaviest part is lightest: the least cap C for which filling the parts in order, each up
// to C, places every row; a part stops early when the rows left are as many as the parts left, so
// no part is empty while R ≥ P. With R ≤ P, one row per part (as kRows).
// With `group` > 1 (BSR's block rows) the rules apply to groups of that many rows, so that no
// boundary cuts a block: every boundary but the last is a multiple of `group`.
std::vector<std::uint64_t> row_bounds(Partition kind, const std::vector<std::uint64_t>& row_entries,
                                      std::uint64_t parts, std::uint64_t group = 1);

// `count` items (rows, a 2d grid's columns, a column tile's) over `parts` ranges by the rows rule,
// in whole groups of `group` (every boundary but the last a multiple of it): `parts` + 1 boundaries.
std::vector<std::uint64_t> even_bounds(std::uint64_t count, std::uint64_t parts, std::uint64_t group = 1);

// The squarest grid of `pes`: columns = the largest divisor of pes not above √pes.
std::uint64_t squarest_grid_cols(std::uint64_t pes);

struct PartitionStats {
  std::vector<std::uint64_t> per_pe;  // stored entries each PE walks
  std::uint64_t total = 0, min = 0, max = 0;
  double mean = 0;
  double imbalance = 0;          // max / mean (1 = perfectly balanced; 0 when there is no work)
  std::uint64_t idle_slots = 0;  // pes × max − total: MAC slots idle while the busiest PE works
};
PartitionStats partition_stats(std::vector<std::uint64_t> per_pe);

}  // namespace treesim::sparse
