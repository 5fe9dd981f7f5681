#include "kernels/graph/model.h"

#include "sim/core/echo.h"

namespace treesim::graph {

std::string declared_text(const ValueInfo& v) {
  if (!v.has_shape) return v.type_name;
  std::string dims;
  for (std::size_t i = 0; i < v.shape.size(); ++i)
    dims += (i ? "," : "") + (v.shape[i] < 0 ? std::string("?") : std::to_string(v.shape[i]));
  return v.type_name + "[" + dims + "]";
}

std::string declaration_mismatch(const ValueInfo& v, const Tensor& t) {
  bool same = v.type && *v.type == t.type;
  if (same && v.has_shape) {
    same = v.shape.size() == t.shape.size();
    for (std::size_t i = 0; same && i < v.shape.size(); ++i)
      same = v.shape[i] < 0 || static_cast<std::uint64_t>(v.shape[i]) == t.shape[i];
  }
  return same ? "" : "expected " + declared_text(v) + " (as the graph declares it), got " + describe(t);
}

std::string node_label(const Node& node) {
  // Names from a file are echoed (control characters escaped, length capped): errors stay one line.
  const std::string op = core::echo(node.op_type);
  return node.name.rfind('#', 0) == 0 ? op + " " + node.name : op + " '" + core::echo(node.name) + "'";
}

namespace {

const Attribute* find(const Node& node, const char* name, Attribute::Kind kind) {
  auto it = node.attributes.find(name);
  return it != node.attributes.end() && it->second.kind == kind ? &it->second : nullptr;
}

}  // namespace

std::optional<std::int64_t> int_attribute(const Node& node, const char* name) {
  const Attribute* a = find(node, name, Attribute::Kind::kInt);
  return a ? std::optional<std::int64_t>(a->i) : std::nullopt;
}

std::optional<float> float_attribute(const Node& node, const char* name) {
  const Attribute* a = find(node, name, Attribute::Kind::kFloat);
  return a ? std::optional<float>(a->f) : std::nullopt;
}

std::optional<std::vector<std::int64_t>> ints_attribute(const Node& node, const char* name) {
  const Attribute* a = find(node, name, Attribute::Kind::kInts);
  return a ? std::optional<std::vector<std::int64_t>>(a->ints) : std::nullopt;
}

}  // namespace treesim::graph
