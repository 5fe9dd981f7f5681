// Quantized data types and the affine map real = scale · (q − zero_point) for host float tensors
// (quant.md §1 and §5.4).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/core/dtype.h"

namespace treesim::numeric {

// The quantized types are core::DType's int8, uint8 and int32.
using core::DType;
using core::dtype_max;
using core::dtype_min;
// int8, uint8 or int32: the types a quantized value may have.
inline bool is_quantized(DType t) { return core::is_integer(t) && t != DType::kInt16; }
inline bool in_range(std::int64_t v, DType t) { return v >= dtype_min(t) && v <= dtype_max(t); }

// Clamps to the type's range: the saturating cast at the end of every output stage.
std::int32_t saturate(std::int64_t v, DType t);

struct QuantParams {
  float scale = 1.0f;  // positive; f32 as in TFLite flatbuffers and oneDNN
  std::int32_t zero_point = 0;
  DType dtype = DType::kInt8;
};

// How the float → integer step breaks ties.
enum class QuantizeRounding {
  kTfLite,  // TFLite AffineQuantize: std::round(v / S) in f32 (ties away from zero), then + Z, clamp
  kOneDnn,  // oneDNN: v / S + Z in f32, clamp, then nearbyint (ties to even)
};

// Quantizes one value, saturating to the dtype's range. NaN quantizes to the zero point.
std::int32_t quantize(float value, const QuantParams& p,
                      QuantizeRounding rounding = QuantizeRounding::kTfLite);

// scale · (q − zero_point), computed in double (exact for 8-bit codes).
double dequantize(std::int32_t q, const QuantParams& p);

}  // namespace treesim::numeric
