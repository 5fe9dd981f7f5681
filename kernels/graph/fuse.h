// Q/DQ fusion: the QDQ form of a quantized model (float MatMul or Gemm between DequantizeLinear and
// QuantizeLinear nodes, as ONNX Runtime's quantizer and PyTorch export it) becomes one quantized
// GEMM node the machine runs, as ONNX Runtime's QDQ transformer makes QLinearMatMul / QGemm:
//
//   DQ(a), DQ(b) → MatMul [→ Add(DQ(int32 bias))] [→ Relu | Clip] → Q   ⇒  QGemm (domain "treesim")
//   DQ(a), DQ(b) [, DQ(int32 bias)] → Gemm [→ Relu | Clip] → Q
//
// The fused node's inputs are QLinearMatMul's eight (a, a_scale, a_zero_point, b, b_scale,
// b_zero_point, y_scale, y_zero_point), the bias's three (int32 values, scale, zero point, "" when
// there is no bias) and Clip's min and max ("" when absent); attributes `relu`, `transB`, Clip's
// `clip_min` / `clip_max` (opsets before 11 give them so) and `fused` (the nodes it replaces).
// Dequantize nodes whose every consumer was fused go too; anything else is left as it is.
#pragma once

#include "kernels/graph/model.h"

namespace treesim::graph {

struct Fusion {
  Model model;
  std::size_t fused = 0;  // QGemm nodes made
};

Fusion fuse_qdq(const Model& model);

}  // namespace treesim::graph
