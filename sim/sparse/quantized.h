// The sparse kernels' operands on the host: A's values quantized to int8 by one stated scheme, and
// A·x with int32 accumulation computed two independent ways, by walking A's storage arrays and
// from the dense matrix, so the kernels can be checked bit-exactly against either.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/sparse/storage.h"

namespace treesim::sparse {

// Symmetric per-tensor int8: scale = max|a| / 127 (1 when A is all zeros), q = round(a / scale)
// with halves away from zero, so the largest magnitude maps to ±127 and -128 is never used.
struct QuantizedValues {
  double scale = 1;
  std::vector<std::int8_t> values;
};
QuantizedValues quantize_values(const std::vector<double>& values);

// `m` with its values replaced by the int8 ones (as doubles), the form the walk reads.
SparseMatrix with_values(const SparseMatrix& m, const std::vector<std::int8_t>& values);

// y = A·x (int32) from A's stored entries, in storage order; A's values must be integers in
// int8's range (with_values). Throws SparseError if an accumulator would leave int32.
std::vector<std::int32_t> spmv_walk(const SparseMatrix& a, const std::vector<std::int8_t>& x);
// The same from the dense rows × cols matrix (row-major, integer values).
std::vector<std::int32_t> spmv_dense(const std::vector<double>& dense, std::uint64_t rows, std::uint64_t cols,
                                     const std::vector<std::int8_t>& x);

}  // namespace treesim::sparse
