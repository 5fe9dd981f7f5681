#include "kernels/graph/ops.h"

#include <map>

#include <fmt/format.h>

namespace treesim::graph {

const char* where_name(Placement::Where w) {
  switch (w) {
    case Placement::Where::kMachine:
      return "machine";
    case Placement::Where::kHost:
      return "host";
    case Placement::Where::kUnsupported:
      return "unsupported";
  }
  return "?";
}

namespace {

// Operators of the default domain, with the attributes each may carry.
struct OpInfo {
  Placement::Where where;
  const char* what;
  std::vector<const char*> attributes;
};

const std::vector<const char*> kConvAttributes = {"auto_pad",     "dilations", "group",
                                                  "kernel_shape", "pads",      "strides"};

const std::vector<const char*> kPoolAttributes = {"auto_pad", "ceil_mode",     "dilations", "kernel_shape",
                                                  "pads",     "storage_order", "strides"};
const std::vector<const char*> kAveragePoolAttributes = {
    "auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads", "strides"};

// treesim's fused operators (kernels/graph/fuse.h), each with what it runs as and the attributes it takes
// besides `fused`.
const std::map<std::string, OpInfo>& fused_table() {
  static const std::map<std::string, OpInfo> ops = {
      {"QGemm",
       {Placement::Where::kMachine, "qgemm (float requant)", {"relu", "transB", "clip_min", "clip_max"}}},
      {"QConv",
       {Placement::Where::kMachine,
        "conv2d (float requant)",
        {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides", "relu", "clip_min",
         "clip_max"}}},
      {"QMaxPool", {Placement::Where::kMachine, "maxpool (x and y quantized alike)", kPoolAttributes}},
      {"QAveragePool", {Placement::Where::kMachine, "avgpool (float requant)", kAveragePoolAttributes}},
      {"QGlobalAveragePool",
       {Placement::Where::kMachine, "avgpool over the whole image (float requant)", {}}},
      {"QAdd", {Placement::Where::kMachine, "qadd (ONNX Runtime's QLinearAdd)", {"relu"}}},
  };
  return ops;
}

// Attributes the operator does not take, as an unsupported placement; nullopt when all are known.
std::optional<Placement> unknown_attribute(const Node& node, const OpInfo& info) {
  for (const auto& [name, attr] : node.attributes) {
    bool known = node.domain == "treesim" && name == "fused";
    for (const char* a : info.attributes) known = known || name == a;
    if (!known)
      return Placement{Placement::Where::kUnsupported, fmt::format("attribute '{}' is not supported", name),
                       ""};
  }
  return std::nullopt;
}

const std::map<std::string, OpInfo>& table() {
  static const std::map<std::string, OpInfo> ops = {
      {"QLinearMatMul", {Placement::Where::kMachine, "qgemm (float requant)", {}}},
      {"MatMulInteger", {Placement::Where::kMachine, "qgemm (int32 accumulators out)", {}}},
      {"QLinearConv", {Placement::Where::kMachine, "conv2d (float requant)", kConvAttributes}},
      {"ConvInteger", {Placement::Where::kMachine, "conv2d (int32 accumulators out)", kConvAttributes}},
      {"MaxPool",
       {Placement::Where::kMachine, "maxpool (int8/uint8 codes; float between Q/DQ)", kPoolAttributes}},
      {"QuantizeLinear", {Placement::Where::kHost, "quantizes a float input (the loader's work)", {"axis"}}},
      {"DequantizeLinear", {Placement::Where::kHost, "dequantizes an output (the loader's work)", {"axis"}}},
      {"Reshape", {Placement::Where::kHost, "shape only: no byte moves", {"allowzero"}}},
      {"Flatten", {Placement::Where::kHost, "shape only: no byte moves", {"axis"}}},
      {"Squeeze", {Placement::Where::kHost, "shape only: no byte moves", {"axes"}}},
      {"Unsqueeze", {Placement::Where::kHost, "shape only: no byte moves", {"axes"}}},
      {"Transpose",
       {Placement::Where::kHost, "permutes in DRAM on the host (not yet a layout conversion)", {"perm"}}},
  };
  return ops;
}

// Float operators that run only where kernels/graph/fuse.cpp folds them into a quantized kernel
// (their Q/DQ pattern), with why and what they become; alone they cannot run.
const std::map<std::string, const char*>& pending() {
  static const std::map<std::string, const char*> ops = {
      {"Conv", "float: runs only fused between DequantizeLinear and QuantizeLinear (as conv2d)"},
      {"MatMul", "float: runs only fused between DequantizeLinear and QuantizeLinear (as qgemm)"},
      {"Gemm", "float: runs only fused between DequantizeLinear and QuantizeLinear (as qgemm)"},
      {"Relu", "float: runs only fused into a quantized kernel's output clamp (after a Q/DQ GEMM or Add)"},
      {"Clip", "float: runs only fused into a quantized kernel's output clamp (after a Q/DQ GEMM)"},
      {"Add",
       "float: runs only fused between DequantizeLinear and QuantizeLinear (as qadd), or as a GEMM's bias"},
      {"AveragePool", "float: runs only fused between DequantizeLinear and QuantizeLinear (as avgpool)"},
      {"GlobalAveragePool",
       "float: runs only fused between DequantizeLinear and QuantizeLinear (as avgpool)"},
  };
  return ops;
}

Placement unsupported(std::string why) { return {Placement::Where::kUnsupported, std::move(why), ""}; }

}  // namespace

Placement place_node(const Node& node, std::int64_t opset) {
  if (node.domain == "treesim") {
    auto op = fused_table().find(node.op_type);
    if (op == fused_table().end())
      return unsupported(fmt::format("'{}' is no treesim operator", node.op_type));
    if (auto bad = unknown_attribute(node, op->second)) return *bad;
    auto it = node.attributes.find("fused");
    return {Placement::Where::kMachine, op->second.what,
            "fused from " + (it != node.attributes.end() ? it->second.s : std::string("Q/DQ"))};
  }
  if (!node.domain.empty() && node.domain != "ai.onnx")
    return unsupported(fmt::format("operator domain '{}' is not supported", node.domain));
  auto it = table().find(node.op_type);
  if (it == table().end()) {
    auto p = pending().find(node.op_type);
    return unsupported(p != pending().end() ? p->second : "not an operator treesim supports");
  }
  if (auto bad = unknown_attribute(node, it->second)) return *bad;
  if (opset > 0 && opset < 10)
    return unsupported(fmt::format("opset {} is older than 10 (QLinearMatMul's)", opset));
  return {it->second.where, it->second.what, ""};
}

bool reshapes(const Node& n) {
  return n.domain.empty() && (n.op_type == "Reshape" || n.op_type == "Flatten" || n.op_type == "Squeeze" ||
                              n.op_type == "Unsqueeze");
}

bool is_gemm(const Node& n) {
  return n.op_type == "QLinearMatMul" || n.op_type == "MatMulInteger" ||
         (n.domain == "treesim" && n.op_type == "QGemm");
}
bool chain_gemm(const Node& n) {
  return n.op_type == "QLinearMatMul" || (n.domain == "treesim" && n.op_type == "QGemm");
}

}  // namespace treesim::graph
