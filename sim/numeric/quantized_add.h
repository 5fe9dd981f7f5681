// The quantized element-wise add of ONNX Runtime's QLinearAdd (and of a fused Q/DQ Add), in float32:
//   y = clamp(nearbyint(fl32(a_scale · fl32(a − a_zero)) + fl32(b_scale · fl32(b − b_zero))) + out_zero,
//             act_min, act_max)
// with a_scale and b_scale each input's scale over the output's, ties to even, every product and
// the sum rounded to float32 (no fused multiply-add), then a saturating cast to out_dtype.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>

#include "sim/core/dtype.h"
#include "sim/numeric/quantize.h"

namespace treesim::numeric {

struct AddStage {
  core::DType a_dtype = core::DType::kInt8, b_dtype = core::DType::kInt8;
  std::int32_t a_zero = 0, b_zero = 0;
  float a_scale = 1, b_scale = 1;
  core::DType out_dtype = core::DType::kInt8;
  std::int32_t out_zero = 0;
  std::int32_t act_min = -128, act_max = 127;
  auto tie() const {
    return std::tie(a_dtype, b_dtype, a_zero, b_zero, a_scale, b_scale, out_dtype, out_zero, act_min,
                    act_max);
  }
};

inline bool operator==(const AddStage& x, const AddStage& y) { return x.tie() == y.tie(); }

// What is wrong with the stage ("" when nothing): 8-bit types, zero points inside them, positive
// scales of at most 2^24, act_min <= act_max inside out_dtype.
std::string add_stage_error(const AddStage& s);

// One output code of the stage for codes a and b (as their types read them).
inline std::int32_t quantized_add(std::int32_t a, std::int32_t b, const AddStage& s) {
  // float32 steps, each product and the sum rounded as written (C++ does not contract them here).
  const float pa = s.a_scale * static_cast<float>(a - s.a_zero);
  const float pb = s.b_scale * static_cast<float>(b - s.b_zero);
  const float sum = pa + pb;
  std::int64_t y = static_cast<std::int64_t>(std::nearbyint(sum)) + s.out_zero;
  y = y < s.act_min ? s.act_min : y;
  y = y > s.act_max ? s.act_max : y;
  return saturate(y, s.out_dtype);
}

}  // namespace treesim::numeric
