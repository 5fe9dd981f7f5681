#include "sim/numeric/quantize.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace treesim::numeric {

std::int32_t saturate(std::int64_t v, DType t) {
  return static_cast<std::int32_t>(std::clamp(v, dtype_min(t), dtype_max(t)));
}

namespace {

// Clamps a float into the dtype's range before any conversion to an integer type: a float outside
// the target's range converts with undefined behaviour.
float clamp_to(float v, DType t) {
  // int32's limits are not floats; 2147483520 is the largest float below 2^31 (quant.md §6.2).
  const float lo = t == DType::kInt32 ? -2147483648.0f : static_cast<float>(dtype_min(t));
  const float hi = t == DType::kInt32 ? 2147483520.0f : static_cast<float>(dtype_max(t));
  return std::min(std::max(v, lo), hi);
}

}  // namespace

std::int32_t quantize(float value, const QuantParams& p, QuantizeRounding rounding) {
  if (std::isnan(value)) return saturate(p.zero_point, p.dtype);
  const float scaled = value / p.scale;
  if (rounding == QuantizeRounding::kTfLite) {
    // The zero point is added after rounding; widen first so that + Z cannot overflow.
    const float rounded = std::round(clamp_to(scaled, DType::kInt32));
    return saturate(static_cast<std::int64_t>(rounded) + p.zero_point, p.dtype);
  }
  const float shifted = scaled + static_cast<float>(p.zero_point);
  return static_cast<std::int32_t>(std::nearbyint(clamp_to(shifted, p.dtype)));
}

double dequantize(std::int32_t q, const QuantParams& p) {
  return static_cast<double>(p.scale) * (static_cast<double>(q) - static_cast<double>(p.zero_point));
}

}  // namespace treesim::numeric
