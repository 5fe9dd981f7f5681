// A quantized Add on the machine: the fused Q/DQ Add (kernels/graph/fuse.h's QAdd) as one qadd problem
// (kernels/add), ONNX Runtime's QLinearAdd arithmetic.
#pragma once

#include "kernels/graph/host_ops.h"
#include "kernels/graph/machine_ops.h"

namespace treesim::graph {

bool is_add(const Node& node);

// Its problem; a and b must have one shape (no broadcasting), scales and zero points per tensor.
kernels::Result<NodeProblem> add_node_problem(const Node& node, const Inputs& in);

}  // namespace treesim::graph
