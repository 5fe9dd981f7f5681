// The host reference quantized GEMM: the formulas below, sharing nothing with the simulator but the
// fixed-point primitives (its raw int8 product is exact_int8_matmul's, not the MAC kernel's). It is
// the oracle every simulated kernel is checked against, so it checks everything and throws
// QuantError rather than wrap.
//
//   acc[m][n] = K·Za·Zb − Za·Σ_k B[k][n] − Zb·Σ_k A[m][k] + Σ_k A[m][k]·B[k][n]   (+ bias[n])
//             = Σ_k (A[m][k] − Za)(B[k][n] − Zb)                                   (Jacob et al. eq. 7)
//   C[m][n]   = requantize(acc[m][n], stage, channel n)
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/numeric/quantize.h"
#include "sim/numeric/requant.h"

namespace treesim::numeric {

struct QGemmParams {
  std::size_t M = 0, N = 0, K = 0;
  DType a_dtype = DType::kInt8;  // uint8 or int8: the codes in A must lie in its range
  DType b_dtype = DType::kInt8;
  std::int32_t a_zero_point = 0;  // inside a_dtype's range
  std::int32_t b_zero_point = 0;  // inside b_dtype's range
  OutputStage out;                // multipliers: 1 (per tensor) or N (per output column)
};

// The accumulators after the bias, row-major M×N. `a` is row-major M×K, `b` row-major K×N, `bias`
// empty or N values. Throws QuantError on a size or range mismatch, or when an accumulator does not
// fit int32 (the reference treats that as undefined behaviour).
std::vector<std::int32_t> reference_qgemm_acc(const QGemmParams& p, const std::vector<std::int32_t>& a,
                                              const std::vector<std::int32_t>& b,
                                              const std::vector<std::int32_t>& bias = {});

// The output codes (in out.out_dtype's range), row-major M×N: reference_qgemm_acc followed by the
// output stage. Also throws QuantError when a requantization is outside its contract.
std::vector<std::int32_t> reference_qgemm(const QGemmParams& p, const std::vector<std::int32_t>& a,
                                          const std::vector<std::int32_t>& b,
                                          const std::vector<std::int32_t>& bias = {});

}  // namespace treesim::numeric
