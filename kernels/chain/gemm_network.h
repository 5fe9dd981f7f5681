// A network of quantized GEMM layers given by their problems and operands — an imported graph's
// chain of QLinearMatMul / fused Q/DQ GEMMs, or the MLP's int8 and ternary layers — run as one program
// (kernels/chain/network.h: the chain planner keeps activations in the LMs where they fit). Layer i reads
// layer i−1's output codes; the reference runs the host's quantized GEMM layer after layer.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/gemm/gemm.h"
#include "kernels/kernel.h"

namespace treesim::kernels {

struct GemmLayer {
  QgemmProblem problem;            // m rows of its input; a_dtype/a_zero are the previous output's
  std::vector<std::uint8_t> b;     // K×N codes, row-major (ternary: int8 −1, 0, +1, packed as the
                                   // problem's weight encoding says when loaded)
  std::vector<std::uint8_t> bias;  // N int32, little-endian (when problem.has_bias)
};

// `input`: layer 0's A (m×K codes). Errors: a layer whose input does not match the previous
// output (rows, features, dtype, zero point), or an int32-output layer.
Result<std::unique_ptr<Problem>> gemm_network_problem(std::vector<GemmLayer> layers,
                                                      std::vector<std::uint8_t> input, bool via_dram);

}  // namespace treesim::kernels
