// The operators the machine runs, as kernel problems through the run session.
#pragma once

#include "graph/host_ops.h"
#include "graph/run.h"

namespace treesim::graph {

// QLinearMatMul, and the fused Q/DQ GEMM (graph/fuse.h: the same inputs plus an int32 bias, with
// `relu` and `transB` attributes): one qgemm per matrix of the batch (numpy matmul broadcasting of a 2-D B),
// with ONNX Runtime's float requant (numeric::Rounding::kFloat). Adds its programs' figures to `record`.
kernels::Result<Tensor> run_qlinear_matmul(const Node& node, const Inputs& in,
                                           const machine::MachineConfig& machine, models::Simulation& sim,
                                           const GraphRunOptions& options, NodeRun& record);

}  // namespace treesim::graph
