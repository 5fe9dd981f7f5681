// The graph's operators on hostile or edge values: every one an error value or ONNX's result,
// never a crash.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kernels/graph/fuse.h"
#include "kernels/graph/host_ops.h"
#include "kernels/graph/machine_ops.h"

namespace treesim::graph {
namespace {

Tensor ints(ElemType type, std::vector<std::uint64_t> shape, std::vector<std::int64_t> values) {
  Tensor t = make_tensor(type, std::move(shape));
  for (std::size_t i = 0; i < values.size(); ++i) set_integer(t, i, values[i]);
  return t;
}

Tensor floats(std::vector<std::uint64_t> shape, std::vector<float> values) {
  Tensor t = make_tensor(ElemType::kFloat32, std::move(shape));
  for (std::size_t i = 0; i < values.size(); ++i) set_real(t, i, values[i]);
  return t;
}

Node op(const std::string& type) {
  Node n;
  n.op_type = type;
  n.name = "n";
  n.outputs = {"y"};
  return n;
}

Node node(const std::string& type, std::vector<std::string> in, std::string out) {
  Node n = op(type);
  n.inputs = std::move(in);
  n.outputs = {std::move(out)};
  return n;
}

std::string first(const core::Errors& e) { return e.empty() ? "" : e.front().message(); }

TEST(HostOps, AReshapeWhoseProductWrapsRoundIsRefused) {
  const Tensor data = ints(ElemType::kUInt8, {8}, {1, 2, 3, 4, 5, 6, 7, 8});
  // 4 · (2^62 + 2) wraps round to 8 in 64 bits.
  const Tensor shape = ints(ElemType::kInt64, {2}, {4, (std::int64_t{1} << 62) + 2});
  kernels::Result<Tensor> r = run_host_op(op("Reshape"), {&data, &shape});
  ASSERT_FALSE(r);
  EXPECT_EQ(first(r.errors()), "node Reshape 'n': shape up to [1] has more than 2^64 elements");
}

TEST(HostOps, QuantizeLinearTakesNaNToTheZeroPointAndTiesToEven) {
  const Tensor x = floats({4}, {std::numeric_limits<float>::quiet_NaN(), 5.0f, 7.0f, -1e30f});
  const Tensor scale = floats({}, {2.0f});
  const Tensor zero = ints(ElemType::kUInt8, {}, {10});
  kernels::Result<Tensor> r = run_host_op(op("QuantizeLinear"), {&x, &scale, &zero});
  ASSERT_TRUE(r) << first(r.errors());
  EXPECT_EQ(r->integer(0), 10);  // NaN
  EXPECT_EQ(r->integer(1), 12);  // 2.5 → 2
  EXPECT_EQ(r->integer(2), 14);  // 3.5 → 4
  EXPECT_EQ(r->integer(3), 0);   // saturates
}

TEST(HostOps, AZeroScaleIsRefused) {
  const Tensor x = floats({1}, {0.0f});
  const Tensor scale = floats({}, {0.0f});
  kernels::Result<Tensor> r = run_host_op(op("QuantizeLinear"), {&x, &scale});
  ASSERT_FALSE(r);
  EXPECT_EQ(first(r.errors()), "node QuantizeLinear 'n': scale[0] = 0 (expected a finite positive number)");
}

// QLinearMatMul's eight inputs.
struct QLinear {
  Tensor a = ints(ElemType::kUInt8, {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor s = floats({}, {0.5f});
  Tensor za = ints(ElemType::kUInt8, {}, {0});
  Tensor b = ints(ElemType::kInt8, {3, 2}, {1, -1, 2, -2, 3, -3});
  Tensor zb = ints(ElemType::kInt8, {}, {0});
  Tensor zy = ints(ElemType::kUInt8, {}, {0});
  Inputs inputs() const { return {&a, &s, &za, &b, &s, &zb, &s, &zy}; }
};

TEST(MachineOps, AnEmptyZeroPointIsRefused) {
  QLinear q;
  q.zb = make_tensor(ElemType::kInt8, {0});
  kernels::Result<PreparedGemm> g = prepare_gemm(op("QLinearMatMul"), q.inputs());
  ASSERT_FALSE(g);
  EXPECT_EQ(first(g.errors()), "node QLinearMatMul 'n': b_zero_point int8[0] must have 1 or 2 elements");
}

TEST(MachineOps, AZeroPointOfAnotherTypeIsNamedWithBothTypes) {
  QLinear q;
  q.za = ints(ElemType::kInt8, {}, {0});
  kernels::Result<PreparedGemm> g = prepare_gemm(op("QLinearMatMul"), q.inputs());
  ASSERT_FALSE(g);
  EXPECT_EQ(
      first(g.errors()),
      "node QLinearMatMul 'n': a_zero_point is int8[], but a is uint8 (a zero point has its tensor's type)");
  q = QLinear{};
  q.zy = ints(ElemType::kInt32, {}, {0});
  g = prepare_gemm(op("QLinearMatMul"), q.inputs());
  ASSERT_FALSE(g);
  EXPECT_EQ(first(g.errors()), "node QLinearMatMul 'n': y_zero_point must be uint8 or int8, got int32[]");
}

TEST(MachineOps, ANegativeScaleIsRefused) {
  QLinear q;
  q.s = floats({}, {-0.5f});
  kernels::Result<PreparedGemm> g = prepare_gemm(op("QLinearMatMul"), q.inputs());
  ASSERT_FALSE(g);
  EXPECT_EQ(first(g.errors()), "node QLinearMatMul 'n': a scale is -0.5 (expected a finite positive number)");
}

TEST(MachineOps, AQLinearMatMulTakesNoBiasInput) {
  QLinear q;
  Inputs in = q.inputs();
  const Tensor bias = ints(ElemType::kInt32, {2}, {1, 1});
  in.push_back(&bias);
  kernels::Result<PreparedGemm> g = prepare_gemm(op("QLinearMatMul"), in);
  ASSERT_FALSE(g);
  EXPECT_EQ(first(g.errors()), "node QLinearMatMul 'n': has 9 inputs; QLinearMatMul takes at most 8");
}

TEST(MachineOps, AnOutputOverAGibIsRefusedBeforeAnythingRuns) {
  QLinear q;
  q.a = make_tensor(ElemType::kUInt8, {1 << 20, 1});
  q.b = make_tensor(ElemType::kInt8, {1, 1 << 20});
  kernels::Result<PreparedGemm> g = prepare_gemm(op("QLinearMatMul"), q.inputs());
  ASSERT_FALSE(g);
  EXPECT_EQ(first(g.errors()),
            "node QLinearMatMul 'n': its output of 1 matrices of 1048576×1048576 is more "
            "than 1 GiB");
}

TEST(Fuse, ANodeWithoutOutputsDoesNotStopFusion) {
  Model m;
  Node dq = op("DequantizeLinear");
  dq.inputs = {"x", "s"};
  dq.outputs.clear();
  m.nodes = {dq};
  EXPECT_EQ(fuse_qdq(m).model.nodes.size(), 1u);
}

TEST(Fuse, RowScalesOnAMatMulsBAreNotFused) {
  Model m;
  Node dq_w = node("DequantizeLinear", {"w", "sw", "zw"}, "wd");
  Attribute axis;
  axis.kind = Attribute::Kind::kInt;
  axis.i = 0;  // one scale per row of the K×N weights: not a per-column requant
  dq_w.attributes["axis"] = axis;
  m.nodes = {node("DequantizeLinear", {"x", "sx", "zx"}, "xd"), dq_w, node("MatMul", {"xd", "wd"}, "mm"),
             node("QuantizeLinear", {"mm", "sy", "zy"}, "y")};
  EXPECT_EQ(fuse_qdq(m).fused, 0u);
}

TEST(Fuse, AGemmOutputReadAsAClipBoundIsNotFused) {
  Model m;
  m.nodes = {node("DequantizeLinear", {"x", "sx", "zx"}, "xd"),
             node("DequantizeLinear", {"w", "sw", "zw"}, "wd"), node("MatMul", {"xd", "wd"}, "mm"),
             node("Clip", {"other", "mm", ""}, "c"), node("QuantizeLinear", {"c", "sy", "zy"}, "y")};
  EXPECT_EQ(fuse_qdq(m).fused, 0u);
}

}  // namespace
}  // namespace treesim::graph
