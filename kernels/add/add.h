// Quantized element-wise add on the tree (ONNX's QLinearAdd, a Q/DQ Add, a residual connection):
// Y[i] = numeric::quantized_add(A[i], B[i]) for `count` int8/uint8 codes of each, spread over every
// PE and streamed through two LM buffers of A, B and Y (load A, load B, add on the requant unit,
// store per pass).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/kernel.h"
#include "sim/numeric/quantized_add.h"

namespace treesim::kernels {

// The problem of adding `a` and `b` (the same number of codes) by `stage`; errors name what is wrong.
Result<std::unique_ptr<Problem>> add_problem(const numeric::AddStage& stage, std::vector<std::uint8_t> a,
                                             std::vector<std::uint8_t> b);

// The reference: the stage's formula over every element.
std::vector<std::uint8_t> reference_add(const numeric::AddStage& stage, const std::vector<std::uint8_t>& a,
                                        const std::vector<std::uint8_t>& b);

}  // namespace treesim::kernels
