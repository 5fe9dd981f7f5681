// The operators the host runs: shape changes (no byte moves on the machine either: a tensor in DRAM
// is row-major whatever its shape), a transpose, and the float conversions at the graph's edges
// (QuantizeLinear, DequantizeLinear), with ONNX's arithmetic (float32, ties to even).
#pragma once

#include <vector>

#include "kernels/graph/model.h"
#include "kernels/kernel.h"

namespace treesim::graph {

// The inputs in the node's order; nullptr for an omitted optional one. Errors name the node.
using Inputs = std::vector<const Tensor*>;
kernels::Result<Tensor> run_host_op(const Node& node, const Inputs& in);

// Shared with the machine ops: an input that must be there, a scalar (one element), an axis in range.
kernels::Result<const Tensor*> required(const Node& node, const Inputs& in, std::size_t i, const char* what);
core::Error node_error(const Node& node, std::string what);

}  // namespace treesim::graph
