// An imported model graph, free of any file format: its inputs and outputs, constant tensors
// (initializers) and nodes in order. kernels/graph/onnx_file.h reads one from ONNX.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kernels/graph/tensor.h"

namespace treesim::graph {

struct Attribute {
  enum class Kind { kInt, kFloat, kInts, kFloats, kString, kTensor, kOther };
  Kind kind = Kind::kOther;
  std::int64_t i = 0;
  float f = 0;
  std::vector<std::int64_t> ints;
  std::vector<float> floats;
  std::string s;
  std::optional<Tensor> t;
};

struct Node {
  std::string name;  // may be empty in the file: then "#INDEX" (its position)
  std::string op_type, domain;
  std::vector<std::string> inputs, outputs;  // "" is an omitted optional input
  std::map<std::string, Attribute> attributes;
};

struct ValueInfo {
  std::string name;
  std::optional<ElemType> type;     // nullopt: a type treesim does not take
  std::string type_name;            // as the file names it ("float16", ...), for messages
  std::vector<std::int64_t> shape;  // -1 for a dimension without a fixed size
  bool has_shape = false;           // the file declares a shape (else `shape` says nothing)
  // A dimension's symbolic name (ONNX's dim_param, "N"), "" where it has none: the inputs that name
  // one dimension alike must be given one size for it.
  std::vector<std::string> dim_params;
};

// "uint8[2,?]" as the graph declares it ("uint8" alone without a shape).
std::string declared_text(const ValueInfo& v);
// "" when `t` is what `v` declares (its type, its rank and every dimension with a size), else what
// differs: "expected uint8[2,4] (as the graph declares it), got uint8[3,4]".
std::string declaration_mismatch(const ValueInfo& v, const Tensor& t);

struct Model {
  std::string path;
  std::int64_t opset = 0;                  // the default domain's
  std::vector<ValueInfo> inputs, outputs;  // inputs without the initializers
  std::map<std::string, Tensor> initializers;
  std::vector<Node> nodes;
};

// "QLinearMatMul 'fc1'" or "QLinearMatMul #3".
std::string node_label(const Node& node);

// A node's attribute of that kind, or nullopt when it is absent or of another kind.
std::optional<std::int64_t> int_attribute(const Node& node, const char* name);
std::optional<float> float_attribute(const Node& node, const char* name);
std::optional<std::vector<std::int64_t>> ints_attribute(const Node& node, const char* name);

}  // namespace treesim::graph
