#include "sim/numeric/float_quant.h"

#include <algorithm>
#include <cmath>

#include "sim/numeric/quantize.h"

namespace treesim::numeric {
namespace {

float scale_of(const std::vector<float>& scales, std::size_t i, std::size_t cols) {
  return scales.size() == 1 ? scales[0] : scales[i % cols];
}

// The values of each scale's group: all of them, or column by column.
std::vector<std::vector<float>> groups(const std::vector<float>& values, std::size_t cols, ScaleMask mask) {
  if (mask == ScaleMask::kPerTensor) return {values};
  std::vector<std::vector<float>> out(cols);
  for (std::size_t i = 0; i < values.size(); ++i) out[i % cols].push_back(values[i]);
  return out;
}

}  // namespace

std::optional<std::size_t> first_non_finite(const std::vector<float>& values) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i])) return i;
  return std::nullopt;
}

std::vector<std::int32_t> quantize_matrix(const std::vector<float>& values, std::size_t cols,
                                          const std::vector<float>& scales, std::int32_t zero, DType dtype) {
  std::vector<std::int32_t> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i)
    out[i] =
        quantize(values[i], QuantParams{scale_of(scales, i, cols), zero, dtype}, QuantizeRounding::kOneDnn);
  return out;
}

std::vector<float> calibrate_minmax(const std::vector<float>& values, std::size_t cols, ScaleMask mask,
                                    std::int32_t zero, DType dtype) {
  const auto above = static_cast<float>(dtype_max(dtype) - zero),
             below = static_cast<float>(zero - dtype_min(dtype));
  std::vector<float> scales;
  for (const std::vector<float>& g : groups(values, cols, mask)) {
    float lo = 0, hi = 0;
    for (float v : g) lo = std::min(lo, v), hi = std::max(hi, v);
    float scale = 0;
    if (above > 0) scale = std::max(scale, hi / above);
    if (below > 0) scale = std::max(scale, -lo / below);
    scales.push_back(scale > 0 ? scale : 1.0f);
  }
  return scales;
}

std::vector<float> calibrate_absmean(const std::vector<float>& values, std::size_t cols, ScaleMask mask) {
  std::vector<float> scales;
  for (const std::vector<float>& g : groups(values, cols, mask)) {
    double sum = 0;
    for (float v : g) sum += std::fabs(static_cast<double>(v));
    const auto mean = g.empty() ? 0.0f : static_cast<float>(sum / static_cast<double>(g.size()));
    scales.push_back(mean > 0 ? mean : 1.0f);
  }
  return scales;
}

std::vector<std::int8_t> ternarize(const std::vector<float>& values, std::size_t cols,
                                   const std::vector<float>& scales) {
  std::vector<std::int8_t> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const float t = std::nearbyint(values[i] / scale_of(scales, i, cols));
    out[i] = static_cast<std::int8_t>(std::clamp(t, -1.0f, 1.0f));
  }
  return out;
}

}  // namespace treesim::numeric
