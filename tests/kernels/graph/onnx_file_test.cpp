// Reading ONNX files: well-formed models become graphs; hostile ones (truncated, wrong types, huge
// graphs, shapes whose product overflows) are one error naming the file and what is wrong.
#include "kernels/graph/onnx_file.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>

namespace treesim::graph {
namespace {

::onnx::ModelProto matmul_model() {
  ::onnx::ModelProto m;
  m.set_ir_version(7);
  m.add_opset_import()->set_version(13);
  ::onnx::GraphProto* g = m.mutable_graph();
  ::onnx::NodeProto* n = g->add_node();
  n->set_op_type("QLinearMatMul");
  n->set_name("fc");
  for (const char* in : {"a", "sa", "za", "b", "sb", "zb", "sy", "zy"}) n->add_input(in);
  n->add_output("y");
  ::onnx::TensorProto* w = g->add_initializer();
  w->set_name("b");
  w->set_data_type(::onnx::TensorProto::INT8);
  w->add_dims(2);
  w->add_dims(3);
  w->set_raw_data(std::string(6, '\x01'));
  ::onnx::ValueInfoProto* a = g->add_input();
  a->set_name("a");
  a->mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::UINT8);
  a->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(4);
  a->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_param("k");
  g->add_output()->set_name("y");
  return m;
}

std::string message(const core::Errors& e) { return e.empty() ? "" : e.front().message(); }

TEST(OnnxFile, AModelBecomesAGraphWithItsInitializersAndNodes) {
  kernels::Result<Model> m = parse_onnx_model(matmul_model().SerializeAsString(), "m.onnx");
  ASSERT_TRUE(m) << message(m.errors());
  EXPECT_EQ(m->opset, 13);
  ASSERT_EQ(m->nodes.size(), 1u);
  EXPECT_EQ(node_label(m->nodes[0]), "QLinearMatMul 'fc'");
  EXPECT_EQ(m->nodes[0].inputs.size(), 8u);
  ASSERT_EQ(m->initializers.count("b"), 1u);
  EXPECT_EQ(describe(m->initializers.at("b")), "int8[2,3]");
  ASSERT_EQ(m->inputs.size(), 1u);
  EXPECT_EQ(m->inputs[0].shape, (std::vector<std::int64_t>{4, -1}));
}

TEST(OnnxFile, ATruncatedModelIsOneError) {
  const std::string bytes = matmul_model().SerializeAsString();
  kernels::Result<Model> m = parse_onnx_model(bytes.substr(0, bytes.size() / 2), "m.onnx");
  ASSERT_FALSE(m);
  EXPECT_EQ(message(m.errors()),
            "m.onnx: not an ONNX model (the protobuf does not parse: truncated or another format?)");
}

TEST(OnnxFile, AnElementTypeTreesimDoesNotTakeNamesTheInitializer) {
  ::onnx::ModelProto p = matmul_model();
  p.mutable_graph()->mutable_initializer(0)->set_data_type(::onnx::TensorProto::FLOAT16);
  kernels::Result<Model> m = parse_onnx_model(p.SerializeAsString(), "m.onnx");
  ASSERT_FALSE(m);
  EXPECT_EQ(message(m.errors()),
            "m.onnx: initializer 'b': element type FLOAT16 is not one treesim takes (float32, uint8, int8, "
            "int32, int64)");
}

TEST(OnnxFile, AShapeWhoseProductOverflowsIsRefused) {
  ::onnx::ModelProto p = matmul_model();
  ::onnx::TensorProto* w = p.mutable_graph()->mutable_initializer(0);
  w->clear_dims();
  w->add_dims(std::int64_t{1} << 40);
  w->add_dims(std::int64_t{1} << 40);
  kernels::Result<Model> m = parse_onnx_model(p.SerializeAsString(), "m.onnx");
  ASSERT_FALSE(m);
  EXPECT_NE(message(m.errors()).find("initializer 'b': shape's element count overflows"), std::string::npos)
      << message(m.errors());
}

TEST(OnnxFile, RawDataOfTheWrongSizeIsRefused) {
  ::onnx::ModelProto p = matmul_model();
  p.mutable_graph()->mutable_initializer(0)->set_raw_data(std::string(5, '\0'));
  kernels::Result<Model> m = parse_onnx_model(p.SerializeAsString(), "m.onnx");
  ASSERT_FALSE(m);
  EXPECT_EQ(message(m.errors()),
            "m.onnx: initializer 'b': raw_data holds 5 bytes; shape [2,3] of int8 needs 6");
}

TEST(OnnxFile, AMillionNodeGraphIsRefused) {
  ::onnx::ModelProto p = matmul_model();
  ::onnx::GraphProto* g = p.mutable_graph();
  const ::onnx::NodeProto node = g->node(0);
  for (int i = 0; i < 1000000; ++i) *g->add_node() = node;
  kernels::Result<Model> m = parse_onnx_model(p.SerializeAsString(), "m.onnx");
  ASSERT_FALSE(m);
  EXPECT_EQ(message(m.errors()), "m.onnx: the graph has 1000001 nodes; treesim takes at most 100000");
}

TEST(OnnxFile, AModelWithoutAGraphIsRefused) {
  ::onnx::ModelProto p;
  p.set_ir_version(7);
  kernels::Result<Model> m = parse_onnx_model(p.SerializeAsString(), "m.onnx");
  ASSERT_FALSE(m);
  EXPECT_EQ(message(m.errors()), "m.onnx: the model has no graph");
}

TEST(OnnxFile, TensorsReadTypedFieldsAndCheckTheirCount) {
  ::onnx::TensorProto t;
  t.set_data_type(::onnx::TensorProto::INT64);
  t.add_dims(2);
  t.add_int64_data(-3);
  t.add_int64_data(7);
  kernels::Result<Tensor> r = parse_onnx_tensor(t.SerializeAsString(), "t.pb");
  ASSERT_TRUE(r) << message(r.errors());
  EXPECT_EQ(r->integer(0), -3);
  EXPECT_EQ(r->integer(1), 7);
  t.add_int64_data(9);
  kernels::Result<Tensor> bad = parse_onnx_tensor(t.SerializeAsString(), "t.pb");
  ASSERT_FALSE(bad);
  EXPECT_EQ(message(bad.errors()), "t.pb: int64_data holds 3 values; shape [2] needs 2");
}

TEST(OnnxFile, AMissingFileIsOneError) {
  kernels::Result<Model> m = read_onnx_model("/nonexistent/model.onnx");
  ASSERT_FALSE(m);
  EXPECT_NE(message(m.errors()).find("/nonexistent/model.onnx: cannot open the ONNX model"),
            std::string::npos)
      << message(m.errors());
}

}  // namespace
}  // namespace treesim::graph
