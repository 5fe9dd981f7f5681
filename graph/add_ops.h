// A quantized Add on the machine: the fused Q/DQ Add (graph/fuse.h's QAdd) as one qadd problem
// (kernels/add), ONNX Runtime's QLinearAdd arithmetic.
#pragma once

#include "graph/host_ops.h"
#include "graph/run.h"

namespace treesim::graph {

bool is_add(const Node& node);

// Its output; a and b must have one shape (no broadcasting), scales and zero points per tensor.
kernels::Result<Tensor> run_add_node(const Node& node, const Inputs& in,
                                     const machine::MachineConfig& machine, models::Simulation& sim,
                                     const GraphRunOptions& options, NodeRun& record);

}  // namespace treesim::graph
