// N:M pruning, as 2:4 structured sparsity is made from a dense or unstructured matrix: in every
// block of m consecutive columns of a row keep the n entries of largest magnitude (the lower column
// first on ties) and drop the rest, so that an n_out_of_m level can store the matrix.
#pragma once

#include <cstdint>

#include "sim/sparse/storage.h"

namespace treesim::sparse {

// Prunes `a` in place (its entries end in row-major order); returns how many entries it dropped.
// @pre 0 < n <= m; no (row, col) twice.
std::uint64_t prune_n_of_m(Coo& a, std::uint64_t n, std::uint64_t m);

}  // namespace treesim::sparse
