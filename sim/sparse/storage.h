// A sparse matrix stored in an encoding: positions and coordinates per level and the values, as
// MLIR's sparse_tensor stores them (tensor-layout §8.3), plus classic ELL for the counting form.
// Arrays hold 64-bit numbers; the encoding's widths say how many bits each takes in memory, and
// building checks that every number fits them.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/sparse/encoding.h"

namespace treesim::sparse {

// A matrix as (row, column, value) triples, in any order; duplicates add up when stored.
struct Triple {
  std::uint64_t row = 0, col = 0;
  double value = 0;
};
struct Coo {
  std::uint64_t rows = 0, cols = 0;
  std::vector<Triple> entries;
};

// MLIR's positions / coordinates of one level; unused arrays stay empty (a dense level has
// neither, a singleton or n_out_of_m level no positions, loose_compressed keeps lo/hi pairs).
struct LevelArrays {
  std::vector<std::uint64_t> positions;
  std::vector<std::uint64_t> coordinates;
};

// ELL's padding coordinate (printed -1): the all-ones value of the coordinate width.
inline std::uint64_t ell_pad(int crd_width) {
  return crd_width == 0 || crd_width == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << crd_width) - 1;
}

// Stored entries past this (dense levels multiply) are refused: more than the simulator can hold.
inline constexpr std::uint64_t kMaxStoredEntries = std::uint64_t{1} << 28;

struct SparseMatrix {
  std::uint64_t rows = 0, cols = 0;
  Encoding encoding;
  std::vector<std::uint64_t> level_sizes;
  std::vector<LevelArrays> levels;
  std::vector<double> values;  // nse entries: every stored value, padding and in-block zeros included
};

// The size of each storage level of a rows × cols matrix in `e` (MLIR's lvl sizes; ELL: K·outer,
// outer, inner).
std::vector<std::uint64_t> level_sizes(const Encoding& e, std::uint64_t rows, std::uint64_t cols);

// Stores `coo` in `e`. Throws SparseError when it cannot: an n_out_of_m block or an ELL row holding
// more nonzeros than the encoding allows, a position or coordinate past its width, an entry outside
// the matrix.
SparseMatrix build(const Coo& coo, const Encoding& e);
// From a row-major dense array of rows × cols values (zeros are not stored).
SparseMatrix build_dense(const std::vector<double>& dense, std::uint64_t rows, std::uint64_t cols,
                         const Encoding& e);

// One triple per (row, col), in row-major order, duplicates summed in file order.
Coo sum_duplicates(Coo coo);
// The triples in each row (a row's stored entries, once duplicates are summed).
std::vector<std::uint64_t> row_entries(const Coo& coo);

// Every stored entry with its matrix coordinates, in storage order (padding left out; in-block
// zeros of BSR and dense levels included).
Coo stored_entries(const SparseMatrix& m);
// Row-major rows × cols.
std::vector<double> to_dense(const SparseMatrix& m);
// The same matrix in another encoding; stored zeros are dropped.
SparseMatrix convert(const SparseMatrix& m, const Encoding& e);

// Nonzeros (stored entries whose value is not 0), stored entries (nse) and storage bytes: each
// level array at its width, values at `value_bytes` each.
std::uint64_t nonzeros(const SparseMatrix& m);
std::uint64_t level_array_bytes(const SparseMatrix& m, std::size_t level, bool positions);
std::uint64_t storage_bytes(const SparseMatrix& m, std::uint64_t value_bytes);

// The checks of tensor-layout §8.3 on arrays that came from outside (a storage file): sizes of the
// arrays, positions non-decreasing and in range, coordinates in range, sorted and unique unless the
// level says otherwise, n_out_of_m blocks of n distinct coordinates, ELL padding at row ends,
// widths. Throws SparseError naming the level, array and index.
void validate(const SparseMatrix& m);

}  // namespace treesim::sparse
