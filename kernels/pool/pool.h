// Pooling of an int8 or uint8 NHWC tensor on the tree, over windows of R×S taps (stride, dilation,
// padding) as a ConvShape with k = c and one group:
//   max:     Y[n, oh, ow, c] = the largest X over the window (padding never wins);
//   average: Y[n, oh, ow, c] = requant(Σ_taps (X − x_zero)) with the window's taps all counted
//            (padding holds the zero point, so it adds nothing: ONNX's count_include_pad = 1) and
//            the requant's multiplier = x_scale / (y_scale · R·S).
// The input's windows come in through a windowed load (the loader's im2col, as conv2d's: DRAM reads
// each input byte a pass needs once), the output rows are spread over every PE, and each PE reduces
// its rows' windows on the copy unit (pool_max, or pool_sum then a requant).
#pragma once

#include <memory>
#include <vector>

#include "kernels/conv2d/conv2d.h"
#include "kernels/kernel.h"
#include "sim/numeric/requant.h"

namespace treesim::kernels {

// Average pooling's arithmetic: the input's type and zero point, and the output stage (one
// multiplier: the scale ratio divided by the window's taps).
struct AvgPoolQuant {
  core::DType x_dtype = core::DType::kInt8;
  std::int32_t x_zero = 0;
  numeric::OutputStage out;
};

Result<std::unique_ptr<Problem>> maxpool_problem(const ConvShape& shape, core::DType dtype,
                                                 std::vector<std::uint8_t> x);
Result<std::unique_ptr<Problem>> avgpool_problem(const ConvShape& shape, const AvgPoolQuant& quant,
                                                 std::vector<std::uint8_t> x);

// The references: a direct loop over every output and tap inside the image.
std::vector<std::uint8_t> reference_maxpool(const ConvShape& shape, core::DType dtype,
                                            const std::vector<std::uint8_t>& x);
// @pre numeric::validate(quant.out, 0) passed.
std::vector<std::uint8_t> reference_avgpool(const ConvShape& shape, const AvgPoolQuant& quant,
                                            const std::vector<std::uint8_t>& x);

}  // namespace treesim::kernels
