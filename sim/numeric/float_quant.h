// Float tensors (f32, f16, bf16 .npy) quantized on load, the oneDNN way (quant.md §6): the affine
// map real = scale · (q − zero_point) with f32 scales, one per tensor (oneDNN mask 0) or one per
// column of a K×N weight matrix (mask 1<<1 = 2: per output channel); scales given, or calibrated
// from the data's min/max. The ternary weights of tgemm use absmean scaling (BitNet b1.58).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/dtype.h"

namespace treesim::numeric {

using core::DType;

// Which scale a matrix element uses: oneDNN's mask for a K×N matrix.
enum class ScaleMask { kPerTensor = 0, kPerColumn = 2 };

// The index of the first NaN or infinity (which have no code), if any.
std::optional<std::size_t> first_non_finite(const std::vector<float>& values);

// A row-major matrix with `cols` columns quantized with zero point `zero` and `scales` (one, or one
// per column): q = nearbyint(clamp(v / scale + zero)) in f32, so ties go to even and values
// outside the type saturate (quantize() with QuantizeRounding::kOneDnn).
// @pre scales.size() is 1 or cols, every scale > 0, every value finite.
std::vector<std::int32_t> quantize_matrix(const std::vector<float>& values, std::size_t cols,
                                          const std::vector<float>& scales, std::int32_t zero, DType dtype);

// Min/max calibration: per tensor or per column, the smallest f32 scale whose codes around `zero`
// cover [min(x, 0), max(x, 0)]: max(max(x, 0) / (qmax − zero), −min(x, 0) / (zero − qmin)),
// each an f32 division (a side with no codes left of the zero point is skipped); 1 for all zeros.
// @pre zero inside dtype's range, every value finite.
std::vector<float> calibrate_minmax(const std::vector<float>& values, std::size_t cols, ScaleMask mask,
                                    std::int32_t zero, DType dtype);

// Absmean calibration of ternary weights: mean(|w|) over the tensor or each column (summed in
// double, rounded to f32); 1 where every weight is 0.
std::vector<float> calibrate_absmean(const std::vector<float>& values, std::size_t cols, ScaleMask mask);

// Ternary codes clamp(nearbyint(w / scale), −1, 1) in f32 (ties to even: 0.5·scale → 0).
// @pre scales.size() is 1 or cols, every scale > 0, every value finite.
std::vector<std::int8_t> ternarize(const std::vector<float>& values, std::size_t cols,
                                   const std::vector<float>& scales);

}  // namespace treesim::numeric
