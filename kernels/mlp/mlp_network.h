// The whole MLP on a batch of images as one program (kernels/chain/network.h): each layer qgemm's or
// tgemm's (DPT-packed weights), its activations left in the LMs and converted on the tree between
// layers where the chain planner keeps them there, verified against the host reference.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/gemm/gemm.h"
#include "kernels/kernel.h"
#include "kernels/mlp/mlp_model.h"

namespace treesim::kernels::mlp {

// The network's layers on `rows` images, as problems (ternary layers with DPT-packed weights).
std::vector<QgemmProblem> network_problems(const MlpModel& model, std::uint64_t rows);

// The network on a batch (`input`: rows × features codes). Its plan is plan_network's (with
// `via_dram`, every activation through DRAM); a chain plan file gives it too. Tensors: X0 (the
// input), W{i}, bias{i}, multiplier{i} and shift{i} per layer, X{L} (the logits).
std::unique_ptr<Problem> network_problem(const MlpModel& model, std::uint64_t rows,
                                         std::vector<std::uint8_t> input, bool via_dram);

}  // namespace treesim::kernels::mlp
