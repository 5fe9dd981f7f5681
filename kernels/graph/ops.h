// Which ONNX operators treesim runs, and where: on the machine (a kernel), on the host (a shape
// change that moves no byte, or the conversion of a float tensor at the graph's edge), or not at all
// (with the reason, one phrase).
#pragma once

#include <string>

#include "kernels/graph/model.h"

namespace treesim::graph {

struct Placement {
  enum class Where { kMachine, kHost, kUnsupported };
  Where where = Where::kUnsupported;
  std::string what;    // machine: the kernel ("qgemm"); host: what it does; unsupported: why
  std::string detail;  // a fused node: "fused from MatMul 'fc1', ..."
};

const char* where_name(Placement::Where w);  // "machine", "host", "unsupported"

// From the operator and its attributes alone (types and values are checked when it runs).
Placement place_node(const Node& node, std::int64_t opset);

bool reshapes(const Node& node);  // Reshape, Flatten, Squeeze, Unsqueeze: no byte moves
bool is_gemm(const Node& node);   // QLinearMatMul, MatMulInteger or the fused QGemm
// A GEMM that can chain with the next: QLinearMatMul and the fused QGemm (int8 codes in and out).
bool chain_gemm(const Node& node);

}  // namespace treesim::graph
