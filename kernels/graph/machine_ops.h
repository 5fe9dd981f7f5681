// The operators the machine runs, as kernel problems (tools/session/graph_run.h runs them).
#pragma once

#include <optional>

#include "kernels/gemm/gemm.h"
#include "kernels/graph/host_ops.h"
#include "kernels/graph/node_run.h"

namespace treesim::graph {

// A GEMM node's problem and operands, read from its inputs (errors name the node): QLinearMatMul,
// MatMulInteger, and the fused Q/DQ GEMM (kernels/graph/fuse.h: the same inputs plus an int32 bias and
// Clip's bounds, with `relu` and `transB` attributes), with ONNX Runtime's float requant
// (numeric::Rounding::kFloat).
struct PreparedGemm {
  kernels::QgemmProblem problem;  // one matrix of the batch
  std::vector<std::uint64_t> batch_dims;
  std::uint64_t batches = 1;
  bool b_batched = false;
  std::vector<std::uint8_t> a, b, bias;  // b as K×N (per matrix when batched)
  ElemType out_type = ElemType::kInt8;
};
kernels::Result<PreparedGemm> prepare_gemm(const Node& node, const Inputs& in);
// Whether a prepared GEMM can be a layer of a one-program chain: one 2-D matrix, int8 output codes.
bool chains(const PreparedGemm& g);

// A per-tensor quantization of 8-bit codes: inputs `at` (scale, float32, one positive value) and
// `at + 1` (zero point, of the codes' type; absent: 0 of `type`).
struct TensorQuant {
  double scale = 1;
  std::int32_t zero = 0;
  ElemType type = ElemType::kUInt8;
};
kernels::Result<TensorQuant> tensor_quant(const Node& node, const Inputs& in, std::size_t at,
                                          const char* what, std::optional<ElemType> type);

// A machine node (or a chain of GEMM nodes) as a kernel problem, ready to be a unit of a graph's
// program (kernels/graph/graph_program.h): the problem's tensor that holds each activation input, and its
// output as the graph's value.
struct NodeProblem {
  std::unique_ptr<kernels::Problem> problem;
  const char* kernel = "";
  std::vector<std::pair<std::size_t, std::string>> reads;  // (node input index, problem tensor)
  std::string output;                                      // the problem's output tensor
  Tensor out;                                              // the value's type and shape (ONNX's; no bytes)
  // The output's bytes are its NHWC transpose (a 4-D NCHW value), as conv2d and the pools leave it;
  // the 4-D inputs are read so too.
  bool nhwc = false;
};

// A 2-D GEMM node (prepare_gemm's, one matrix) as one qgemm problem.
kernels::Result<NodeProblem> gemm_node_problem(const Node& node, PreparedGemm gemm);

// Consecutive GEMM nodes (`layers`, as prepare_gemm made them), each reading the one before's output,
// as one network problem (the chain planner keeps activations in the LMs where they fit): input
// "X0", output "X{L}", its phases "layer{i}" and "layer{i}.convert".
kernels::Result<NodeProblem> chain_node_problem(const std::vector<const Node*>& nodes,
                                                std::vector<PreparedGemm> layers);

// B's rows (K×N, 8-bit) reordered for an A whose K axis is a flattened NCHW value's (c, h, w) but
// whose bytes are its NHWC (h, w, c) order: the same product from the NHWC bytes.
void permute_k_for_nhwc(PreparedGemm& gemm, const std::vector<std::uint64_t>& nchw);

}  // namespace treesim::graph
