// ONNX's quantized 2-D convolutions on the machine: QLinearConv, ConvInteger, and a Q/DQ Conv fused
// into treesim's QConv (kernels/graph/fuse.h), each as one conv2d problem (kernels/conv2d) run by the run
// session. ONNX's tensors are NCHW and conv2d's NHWC: the host transposes an input it gives (not
// simulated, as Transpose nodes are not); between machine nodes the values stay NHWC.
#pragma once

#include "kernels/graph/host_ops.h"
#include "kernels/graph/machine_ops.h"

namespace treesim::graph {

bool is_conv(const Node& node);
// MaxPool, and the fused Q/DQ pools (kernels/graph/fuse.h): QMaxPool, QAveragePool, QGlobalAveragePool.
bool is_pool(const Node& node);

// Its problem (errors name the node and what it cannot take: a rank other than 4, an attribute value,
// per-channel zero points). MaxPool of int8 or uint8 codes as one maxpool problem (a float input is
// refused: it needs Q/DQ); the fused pools as one maxpool (x and y quantized alike) or avgpool
// problem (float requant).
kernels::Result<NodeProblem> pool_node_problem(const Node& node, const Inputs& in);
kernels::Result<NodeProblem> conv_node_problem(const Node& node, const Inputs& in);

}  // namespace treesim::graph
