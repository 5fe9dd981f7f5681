// Q/DQ fusion: which patterns become one quantized GEMM, and which are left as they are.
#include "kernels/graph/fuse.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/graph/ops.h"

namespace treesim::graph {
namespace {

Node node(const std::string& op, std::vector<std::string> in, std::string out, const std::string& name) {
  Node n;
  n.op_type = op;
  n.name = name;
  n.inputs = std::move(in);
  n.outputs = {std::move(out)};
  return n;
}

// x → DQ → MatMul(DQ(w)) → Add(DQ(b)) → Relu → Q → y
Model mlp_layer() {
  Model m;
  m.inputs = {{"x", ElemType::kUInt8, "uint8", {4, 8}, true, {}}};
  m.outputs = {{"y", ElemType::kInt8, "int8", {4, 3}, true, {}}};
  m.nodes = {node("DequantizeLinear", {"x", "sx", "zx"}, "xd", "dq_x"),
             node("DequantizeLinear", {"w", "sw", "zw"}, "wd", "dq_w"),
             node("DequantizeLinear", {"b", "sb"}, "bd", "dq_b"),
             node("MatMul", {"xd", "wd"}, "mm", "fc"),
             node("Add", {"mm", "bd"}, "h", "bias"),
             node("Relu", {"h"}, "r", "relu"),
             node("QuantizeLinear", {"r", "sy", "zy"}, "y", "q")};
  return m;
}

TEST(Fuse, AMatMulLayerWithBiasAndReluBecomesOneQGemm) {
  const Fusion f = fuse_qdq(mlp_layer());
  ASSERT_EQ(f.fused, 1u);
  ASSERT_EQ(f.model.nodes.size(), 1u);
  const Node& g = f.model.nodes[0];
  EXPECT_EQ(g.op_type, "QGemm");
  EXPECT_EQ(g.domain, "treesim");
  EXPECT_EQ(g.inputs,
            (std::vector<std::string>{"x", "sx", "zx", "w", "sw", "zw", "sy", "zy", "b", "sb", "", "", ""}));
  EXPECT_EQ(g.outputs[0], "y");
  EXPECT_EQ(g.attributes.at("relu").i, 1);
  EXPECT_EQ(g.attributes.at("fused").s, "MatMul 'fc', Add 'bias', Relu 'relu', QuantizeLinear 'q'");
  EXPECT_EQ(place_node(g, 13).where, Placement::Where::kMachine);
}

TEST(Fuse, AClipBecomesTheOutputClampsBounds) {
  Model m = mlp_layer();
  m.nodes[5] = node("Clip", {"h", "lo", "hi"}, "r", "relu6");
  const Fusion f = fuse_qdq(m);
  ASSERT_EQ(f.fused, 1u);
  const Node& g = f.model.nodes[0];
  EXPECT_EQ(g.attributes.at("relu").i, 0);
  ASSERT_EQ(g.inputs.size(), 13u);
  EXPECT_EQ(g.inputs[11], "lo");
  EXPECT_EQ(g.inputs[12], "hi");
}

TEST(Fuse, AnActivationThatIsAlsoAGraphOutputIsNotFused) {
  Model m = mlp_layer();
  m.outputs.push_back({"h", ElemType::kFloat32, "float32", {4, 3}, true, {}});
  const Fusion f = fuse_qdq(m);
  EXPECT_EQ(f.fused, 0u);
  EXPECT_EQ(f.model.nodes.size(), m.nodes.size());
}

TEST(Fuse, AnActivationWithASecondReaderIsNotFused) {
  Model m = mlp_layer();
  m.nodes.push_back(node("Relu", {"mm"}, "other", "second_reader"));
  EXPECT_EQ(fuse_qdq(m).fused, 0u);
}

TEST(Fuse, GemmWithTransAOrAlphaIsNotFused) {
  for (const char* attr : {"transA", "alpha"}) {
    Model m;
    m.nodes = {node("DequantizeLinear", {"x", "sx", "zx"}, "xd", "dq_x"),
               node("DequantizeLinear", {"w", "sw", "zw"}, "wd", "dq_w"),
               node("Gemm", {"xd", "wd"}, "mm", "fc"), node("QuantizeLinear", {"mm", "sy", "zy"}, "y", "q")};
    Attribute a;
    if (std::string(attr) == "alpha") {
      a.kind = Attribute::Kind::kFloat;
      a.f = 2.0f;
    } else {
      a.kind = Attribute::Kind::kInt;
      a.i = 1;
    }
    m.nodes[2].attributes[attr] = a;
    EXPECT_EQ(fuse_qdq(m).fused, 0u) << attr;
  }
}

TEST(Fuse, AMatMulWithoutAQuantizeAfterItIsLeftAlone) {
  Model m = mlp_layer();
  m.nodes.pop_back();  // no QuantizeLinear: the float result is the output
  m.outputs = {{"r", ElemType::kFloat32, "float32", {4, 3}, true, {}}};
  const Fusion f = fuse_qdq(m);
  EXPECT_EQ(f.fused, 0u);
  // ... and the float MatMul it leaves cannot run.
  EXPECT_EQ(place_node(f.model.nodes[3], 13).where, Placement::Where::kUnsupported);
}

TEST(Fuse, DequantizeNodesWithAnotherReaderStay) {
  Model m = mlp_layer();
  m.outputs.push_back({"xd", ElemType::kFloat32, "float32", {4, 8}, true, {}});
  const Fusion f = fuse_qdq(m);
  ASSERT_EQ(f.fused, 1u);
  ASSERT_EQ(f.model.nodes.size(), 2u);
  EXPECT_EQ(f.model.nodes[0].op_type, "DequantizeLinear");  // dq_x: a graph output too
  EXPECT_EQ(f.model.nodes[1].op_type, "QGemm");
}

// x → DQ → Conv(DQ(w) per filter, DQ(b)) → Relu → Q → y
Model conv_layer() {
  Model m;
  m.inputs = {{"x", ElemType::kUInt8, "uint8", {1, 3, 8, 8}, true, {}}};
  m.outputs = {{"y", ElemType::kUInt8, "uint8", {1, 4, 4, 4}, true, {}}};
  Node dq_w = node("DequantizeLinear", {"w", "sw", "zw"}, "wd", "dq_w");
  dq_w.attributes["axis"].kind = Attribute::Kind::kInt;
  dq_w.attributes["axis"].i = 0;
  Node conv = node("Conv", {"xd", "wd", "bd"}, "c", "conv");
  conv.attributes["strides"].kind = Attribute::Kind::kInts;
  conv.attributes["strides"].ints = {2, 2};
  m.nodes = {node("DequantizeLinear", {"x", "sx", "zx"}, "xd", "dq_x"),
             dq_w,
             node("DequantizeLinear", {"b", "sb"}, "bd", "dq_b"),
             conv,
             node("Relu", {"c"}, "r", "relu"),
             node("QuantizeLinear", {"r", "sy", "zy"}, "y", "q")};
  return m;
}

TEST(Fuse, AConvLayerWithBiasAndReluBecomesOneQConvKeepingItsAttributes) {
  const Fusion f = fuse_qdq(conv_layer());
  ASSERT_EQ(f.fused, 1u);
  ASSERT_EQ(f.model.nodes.size(), 1u);
  const Node& g = f.model.nodes[0];
  EXPECT_EQ(g.op_type, "QConv");
  EXPECT_EQ(g.domain, "treesim");
  EXPECT_EQ(g.inputs,
            (std::vector<std::string>{"x", "sx", "zx", "w", "sw", "zw", "sy", "zy", "b", "sb", "", "", ""}));
  EXPECT_EQ(g.attributes.at("relu").i, 1);
  EXPECT_EQ(g.attributes.at("strides").ints, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(g.attributes.count("transB"), 0u);
  const Placement p = place_node(g, 13);
  EXPECT_EQ(p.where, Placement::Where::kMachine);
  EXPECT_EQ(p.what, "conv2d (float requant)");
}

TEST(Fuse, AConvWhoseWeightScalesRunAlongInputChannelsIsNotFused) {
  Model m = conv_layer();
  m.nodes[1].attributes["axis"].i = 1;  // per input channel: not a per-filter requant
  EXPECT_EQ(fuse_qdq(m).fused, 0u);
}

// x → DQ → POOL → Q → y
Model pool_layer(const std::string& op) {
  Model m;
  m.inputs = {{"x", ElemType::kUInt8, "uint8", {1, 3, 8, 8}, true, {}}};
  m.outputs = {{"y", ElemType::kInt8, "int8", {1, 3, 4, 4}, true, {}}};
  Node pool = node(op, {"xd"}, "p", "pool");
  if (op != "GlobalAveragePool") {
    pool.attributes["kernel_shape"].kind = Attribute::Kind::kInts;
    pool.attributes["kernel_shape"].ints = {2, 2};
  }
  m.nodes = {node("DequantizeLinear", {"x", "sx", "zx"}, "xd", "dq_x"), pool,
             node("QuantizeLinear", {"p", "sy", "zy"}, "y", "q")};
  return m;
}

TEST(Fuse, PoolsBetweenDequantizeAndQuantizeBecomeTreesimPoolsKeepingTheirAttributes) {
  for (const char* op : {"MaxPool", "AveragePool", "GlobalAveragePool"}) {
    SCOPED_TRACE(op);
    const Fusion f = fuse_qdq(pool_layer(op));
    ASSERT_EQ(f.fused, 1u);
    ASSERT_EQ(f.model.nodes.size(), 1u);
    const Node& g = f.model.nodes[0];
    EXPECT_EQ(g.op_type, std::string("Q") + op);
    EXPECT_EQ(g.domain, "treesim");
    EXPECT_EQ(g.inputs, (std::vector<std::string>{"x", "sx", "zx", "sy", "zy"}));
    EXPECT_EQ(g.attributes.count("kernel_shape"), std::string(op) == "GlobalAveragePool" ? 0u : 1u);
    EXPECT_EQ(place_node(g, 13).where, Placement::Where::kMachine);
  }
}

TEST(Fuse, APoolWhoseOutputHasASecondReaderIsNotFused) {
  Model m = pool_layer("AveragePool");
  m.nodes.push_back(node("Relu", {"p"}, "r", "relu"));
  EXPECT_EQ(fuse_qdq(m).fused, 0u);
}

TEST(Fuse, AFusedPoolWithAnAttributeItDoesNotTakeIsUnsupported) {
  Model m = pool_layer("AveragePool");
  m.nodes[1].attributes["storage_order"].kind = Attribute::Kind::kInt;  // MaxPool's, not AveragePool's
  const Fusion f = fuse_qdq(m);
  ASSERT_EQ(f.fused, 1u);
  const Placement p = place_node(f.model.nodes[0], 13);
  EXPECT_EQ(p.where, Placement::Where::kUnsupported);
  EXPECT_EQ(p.what, "attribute 'storage_order' is not supported");
}

// a, b → DQ each → Add → Relu → Q → y
Model add_layer() {
  Model m;
  m.inputs = {{"a", ElemType::kUInt8, "uint8", {2, 8}, true, {}},
              {"b", ElemType::kInt8, "int8", {2, 8}, true, {}}};
  m.outputs = {{"y", ElemType::kInt8, "int8", {2, 8}, true, {}}};
  m.nodes = {node("DequantizeLinear", {"a", "sa", "za"}, "ad", "dq_a"),
             node("DequantizeLinear", {"b", "sb", "zb"}, "bd", "dq_b"), node("Add", {"ad", "bd"}, "s", "add"),
             node("Relu", {"s"}, "r", "relu"), node("QuantizeLinear", {"r", "sy", "zy"}, "y", "q")};
  return m;
}

TEST(Fuse, AnAddOfTwoDequantizedTensorsWithReluBecomesOneQAdd) {
  const Fusion f = fuse_qdq(add_layer());
  ASSERT_EQ(f.fused, 1u);
  ASSERT_EQ(f.model.nodes.size(), 1u);
  const Node& g = f.model.nodes[0];
  EXPECT_EQ(g.op_type, "QAdd");
  EXPECT_EQ(g.inputs, (std::vector<std::string>{"a", "sa", "za", "b", "sb", "zb", "sy", "zy"}));
  EXPECT_EQ(g.attributes.at("relu").i, 1);
  EXPECT_EQ(place_node(g, 13).what, "qadd (ONNX Runtime's QLinearAdd)");
}

TEST(Fuse, AMatMulsBiasAddGoesWithTheMatMulNotIntoAQAdd) {
  const Fusion f = fuse_qdq(mlp_layer());
  ASSERT_EQ(f.fused, 1u);
  EXPECT_EQ(f.model.nodes[0].op_type, "QGemm");
}

TEST(Fuse, AnAddOfAFloatTensorIsNotFused) {
  Model m = add_layer();
  m.nodes[2].inputs = {"ad", "b"};  // b is no DequantizeLinear's output
  m.nodes.erase(m.nodes.begin() + 1);
  EXPECT_EQ(fuse_qdq(m).fused, 0u);
}

}  // namespace
}  // namespace treesim::graph
