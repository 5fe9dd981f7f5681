// The MLP's layouts from the whole-network (chain) planner (kernels/chain): the network's GEMM
// shapes as a chain, its shortest path (or a chain plan file of `treesim tune chain`), and each
// layer's whole A, B and C layouts under the chosen plan, which the layer's own kernel (qgemm or
// tgemm, with its per-layer bias and requantization) then plans within. One planner: the chain's.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/chain/chain.h"
#include "kernels/mlp/mlp_layer.h"

namespace treesim::kernels::mlp {

// The network's GEMMs on `rows` images as a chain: m = rows, widths = features, then each layer's N.
GemmChainSpec chain_spec(const MlpModel& model, std::uint64_t rows);

// The chain planner's best path for `rows` images, as per-layer layouts.
Result<NetworkPlan> chain_network_plan(const MlpModel& model, std::uint64_t rows,
                                       const machine::MachineConfig& machine);

// Whether `text` is a chain plan file (`kernel: chain`, as `treesim tune chain` writes).
bool is_chain_plan_text(const std::string& text);

// The layouts of a chain plan file, checked against the network's shapes on `rows` images.
Result<NetworkPlan> chain_plan_file_layouts(const std::string& path, const MlpModel& model,
                                            std::uint64_t rows, const machine::MachineConfig& machine);

}  // namespace treesim::kernels::mlp
