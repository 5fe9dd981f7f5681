// oneDNN's int8 matmul semantics (quant.md §6.2), for comparing the simulator with oneDNN runs: an
// exact int32 accumulator, then f32 scales, f32 bias in the output's real domain, f32 post-ops,
// · f32(1/dst_scale), + dst zero point, saturate, round to nearest even. Each f32 step is rounded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/numeric/quantize.h"

namespace treesim::numeric {

struct OneDnnPostOp {
  enum class Kind { kRelu, kClip };  // relu: d > 0 ? d : alpha·d; clip: clamp(d, alpha, beta)
  Kind kind = Kind::kRelu;
  float alpha = 0.0f;
  float beta = 0.0f;
};

struct OneDnnGemmParams {
  std::size_t M = 0, N = 0, K = 0;
  DType src_dtype = DType::kUInt8, wei_dtype = DType::kInt8, dst_dtype = DType::kInt8;
  std::int32_t src_zero_point = 0, wei_zero_point = 0, dst_zero_point = 0;
  float src_scale = 1.0f;
  std::vector<float> wei_scales{1.0f};  // 1 (mask 0) or N (mask 2: per output column)
  float dst_scale = 1.0f;
  std::vector<OneDnnPostOp> post_ops;
  // Matmul multiplies by src_scale, then by wei_scale[n]; convolution folds f32(src·wei) first.
  bool fold_scales = false;
};

// Row-major M×K `a` and K×N `b` codes, `bias` empty or N f32 values; returns M×N dst codes.
// Throws QuantError on a size or range mismatch or an int32 accumulator overflow.
std::vector<std::int32_t> reference_qgemm_onednn(const OneDnnGemmParams& p,
                                                 const std::vector<std::int32_t>& a,
                                                 const std::vector<std::int32_t>& b,
                                                 const std::vector<float>& bias = {});

}  // namespace treesim::numeric
