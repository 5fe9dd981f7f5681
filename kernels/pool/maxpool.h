// Max pooling of an int8 or uint8 NHWC tensor on the tree: Y[n, oh, ow, c] = the largest X over the
// window (R×S taps, stride, dilation; padding never wins). The input's windows come in through a
// windowed load (the loader's im2col, as conv2d's: DRAM reads each input byte a pass needs once),
// the output rows are spread over every PE, and each PE takes its rows' window maxima on the copy
// unit (pool_max).
#pragma once

#include <memory>
#include <vector>

#include "kernels/conv2d/conv2d.h"
#include "kernels/kernel.h"

namespace treesim::kernels {

// The geometry is a ConvShape's with k = c and one group (its r, s, strides, dilations and pads).
Result<std::unique_ptr<Problem>> maxpool_problem(const ConvShape& shape, core::DType dtype,
                                                 std::vector<std::uint8_t> x);

// The reference: a direct loop over every output and tap inside the image.
std::vector<std::uint8_t> reference_maxpool(const ConvShape& shape, core::DType dtype,
                                            const std::vector<std::uint8_t>& x);

}  // namespace treesim::kernels
