#include "kernels/graph/onnx_file.h"

#include <onnx/onnx_pb.h>  // defines ONNX_API, then includes onnx-ml.pb.h

#include <cstdint>
#include <cstring>
#include <set>

#include <fmt/format.h>

#include "sim/core/checked.h"
#include "sim/core/echo.h"
#include "sim/io/input_file.h"

namespace treesim::graph {
namespace {

using core::Error;

std::optional<ElemType> elem_type_of(int onnx_type) {
  switch (onnx_type) {
    case ::onnx::TensorProto::FLOAT:
      return ElemType::kFloat32;
    case ::onnx::TensorProto::UINT8:
      return ElemType::kUInt8;
    case ::onnx::TensorProto::INT8:
      return ElemType::kInt8;
    case ::onnx::TensorProto::INT32:
      return ElemType::kInt32;
    case ::onnx::TensorProto::INT64:
      return ElemType::kInt64;
    default:
      return std::nullopt;
  }
}

std::string onnx_type_name(int onnx_type) {
  if (::onnx::TensorProto::DataType_IsValid(onnx_type))
    return ::onnx::TensorProto::DataType_Name(static_cast<::onnx::TensorProto::DataType>(onnx_type));
  return fmt::format("type {}", onnx_type);
}

// A TensorProto's values; `where` names it in messages ("initializer 'w'").
kernels::Result<Tensor> tensor_of(const ::onnx::TensorProto& p, const std::string& where) {
  auto fail = [&](std::string what) { return Error{where, std::move(what)}; };
  const std::optional<ElemType> type = elem_type_of(p.data_type());
  if (!type)
    return fail(fmt::format("element type {} is not one treesim takes (float32, uint8, int8, int32, int64)",
                            onnx_type_name(p.data_type())));
  if (p.has_data_location() && p.data_location() == ::onnx::TensorProto::EXTERNAL)
    return fail("data in an external file is not supported");
  if (p.has_segment()) return fail("segmented tensors are not supported");
  Tensor t;
  t.type = *type;
  std::uint64_t count = 1;
  for (std::int64_t d : p.dims()) {
    if (d < 0) return fail(fmt::format("dimension {} is negative", d));
    const auto n = core::checked_mul(count, static_cast<std::uint64_t>(d));
    if (!n || *n > kMaxTensorBytes)
      return fail(fmt::format("shape's element count overflows (more than {} bytes)", kMaxTensorBytes));
    count = *n;
    t.shape.push_back(static_cast<std::uint64_t>(d));
  }
  const std::size_t eb = elem_bytes(*type);
  if (count * eb > kMaxTensorBytes)
    return fail(fmt::format("{} elements are more than {} bytes", count, kMaxTensorBytes));
  if (p.has_raw_data()) {
    if (p.raw_data().size() != count * eb)
      return fail(fmt::format("raw_data holds {} bytes; shape {} of {} needs {}", p.raw_data().size(),
                              shape_text(t.shape), elem_name(*type), count * eb));
    t.bytes.assign(p.raw_data().begin(), p.raw_data().end());
    return t;
  }
  t.bytes.assign(count * eb, 0);
  auto check_count = [&](std::uint64_t given, const char* field) -> std::optional<Error> {
    if (given == count) return std::nullopt;
    return fail(
        fmt::format("{} holds {} values; shape {} needs {}", field, given, shape_text(t.shape), count));
  };
  switch (*type) {
    case ElemType::kFloat32:
      if (auto e = check_count(static_cast<std::uint64_t>(p.float_data_size()), "float_data")) return *e;
      for (std::uint64_t i = 0; i < count; ++i) set_real(t, i, p.float_data(static_cast<int>(i)));
      break;
    case ElemType::kInt64:
      if (auto e = check_count(static_cast<std::uint64_t>(p.int64_data_size()), "int64_data")) return *e;
      for (std::uint64_t i = 0; i < count; ++i) set_integer(t, i, p.int64_data(static_cast<int>(i)));
      break;
    default: {  // uint8, int8 and int32 travel in int32_data
      if (auto e = check_count(static_cast<std::uint64_t>(p.int32_data_size()), "int32_data")) return *e;
      const std::int64_t lo = *type == ElemType::kUInt8 ? 0 : *type == ElemType::kInt8 ? -128 : INT32_MIN;
      const std::int64_t hi = *type == ElemType::kUInt8 ? 255 : *type == ElemType::kInt8 ? 127 : INT32_MAX;
      for (std::uint64_t i = 0; i < count; ++i) {
        const std::int64_t v = p.int32_data(static_cast<int>(i));
        if (v < lo || v > hi)
          return fail(fmt::format("int32_data[{}] = {} is outside {}'s range", i, v, elem_name(*type)));
        set_integer(t, i, v);
      }
      break;
    }
  }
  return t;
}

kernels::Result<Attribute> attribute_of(const ::onnx::AttributeProto& a, const std::string& where) {
  Attribute r;
  switch (a.type()) {
    case ::onnx::AttributeProto::INT:
      r.kind = Attribute::Kind::kInt;
      r.i = a.i();
      break;
    case ::onnx::AttributeProto::FLOAT:
      r.kind = Attribute::Kind::kFloat;
      r.f = a.f();
      break;
    case ::onnx::AttributeProto::INTS:
      r.kind = Attribute::Kind::kInts;
      r.ints.assign(a.ints().begin(), a.ints().end());
      break;
    case ::onnx::AttributeProto::FLOATS:
      r.kind = Attribute::Kind::kFloats;
      r.floats.assign(a.floats().begin(), a.floats().end());
      break;
    case ::onnx::AttributeProto::STRING:
      r.kind = Attribute::Kind::kString;
      r.s = a.s();
      break;
    case ::onnx::AttributeProto::TENSOR: {
      r.kind = Attribute::Kind::kTensor;
      // A tensor attribute treesim cannot read (a float16 Constant, ...) leaves the model loadable: no
      // operator it runs reads one, and the node that has it is refused when it runs.
      kernels::Result<Tensor> t = tensor_of(a.t(), where);
      if (!t) {
        r.kind = Attribute::Kind::kOther;
        break;
      }
      r.t = std::move(t.value());
      break;
    }
    default:
      r.kind = Attribute::Kind::kOther;
  }
  return r;
}

// A graph input's or output's declaration; `where` names it in messages ("input 'x'"). Its declared
// size is held to the tensor cap here, in the reader, before anything sizes a tensor by it (a
// dimension without a size counts as 1).
kernels::Result<ValueInfo> value_info_of(const ::onnx::ValueInfoProto& v, const std::string& where) {
  ValueInfo info;
  info.name = v.name();
  if (v.type().has_tensor_type()) {
    const auto& tt = v.type().tensor_type();
    info.type = elem_type_of(tt.elem_type());
    info.type_name = info.type ? elem_name(*info.type) : onnx_type_name(tt.elem_type());
    info.has_shape = tt.has_shape();
    std::optional<std::uint64_t> bytes = info.type ? elem_bytes(*info.type) : 1;
    for (const auto& d : tt.shape().dim()) {
      info.shape.push_back(d.has_dim_value() && d.dim_value() >= 0 ? d.dim_value() : -1);
      info.dim_params.push_back(info.shape.back() < 0 && d.has_dim_param() ? d.dim_param() : "");
      if (info.shape.back() > 0 && bytes)
        bytes = core::checked_mul(*bytes, static_cast<std::uint64_t>(info.shape.back()));
    }
    if (!bytes || *bytes > kMaxTensorBytes)
      return Error{where,
                   fmt::format("declared {} is more than {} bytes", declared_text(info), kMaxTensorBytes)};
  } else {
    info.type_name = "not a tensor";
  }
  return info;
}

}  // namespace

kernels::Result<Model> parse_onnx_model(const std::string& bytes, const std::string& path) {
  ::onnx::ModelProto proto;
  if (!proto.ParseFromString(bytes))
    return Error{path, "not an ONNX model (the protobuf does not parse: truncated or another format?)"};
  if (!proto.has_graph()) return Error{path, "the model has no graph"};
  const ::onnx::GraphProto& g = proto.graph();
  if (static_cast<std::uint64_t>(g.node_size()) > kMaxNodes)
    return Error{path,
                 fmt::format("the graph has {} nodes; treesim takes at most {}", g.node_size(), kMaxNodes)};
  Model m;
  m.path = path;
  for (const auto& o : proto.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") m.opset = o.version();
  std::uint64_t total = 0;
  for (const auto& init : g.initializer()) {
    kernels::Result<Tensor> t =
        tensor_of(init, fmt::format("{}: initializer '{}'", path, core::echo(init.name())));
    if (!t) return t.errors();
    total += t->bytes.size();
    if (total > kMaxModelBytes) return Error{path, "the initializers hold more than 1 GiB"};
    m.initializers[init.name()] = std::move(t.value());
  }
  for (const auto& in : g.input()) {
    if (m.initializers.count(in.name())) continue;
    kernels::Result<ValueInfo> v =
        value_info_of(in, fmt::format("{}: input '{}'", path, core::echo(in.name())));
    if (!v) return v.errors();
    m.inputs.push_back(std::move(v.value()));
  }
  for (const auto& out : g.output()) {
    kernels::Result<ValueInfo> v =
        value_info_of(out, fmt::format("{}: output '{}'", path, core::echo(out.name())));
    if (!v) return v.errors();
    m.outputs.push_back(std::move(v.value()));
  }
  for (int i = 0; i < g.node_size(); ++i) {
    const ::onnx::NodeProto& np = g.node(i);
    Node n;
    n.name = np.name().empty() ? fmt::format("#{}", i) : np.name();
    n.op_type = np.op_type();
    n.domain = np.domain();
    n.inputs.assign(np.input().begin(), np.input().end());
    n.outputs.assign(np.output().begin(), np.output().end());
    for (const auto& a : np.attribute()) {
      kernels::Result<Attribute> attr = attribute_of(
          a, fmt::format("{}: node {} attribute '{}'", path, node_label(n), core::echo(a.name())));
      if (!attr) return attr.errors();
      n.attributes[a.name()] = std::move(attr.value());
    }
    m.nodes.push_back(std::move(n));
  }
  return m;
}

kernels::Result<Model> read_onnx_model(const std::string& path) {
  try {
    return parse_onnx_model(io::read_input_file(path, kMaxModelBytes, "ONNX model"), path);
  } catch (const io::InputFileError& e) {
    return Error{path, e.reason()};
  }
}

kernels::Result<Tensor> parse_onnx_tensor(const std::string& bytes, const std::string& path) {
  ::onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes))
    return Error{path, "not an ONNX tensor (the protobuf does not parse: truncated or another format?)"};
  return tensor_of(proto, path);
}

kernels::Result<Tensor> read_onnx_tensor(const std::string& path) {
  try {
    return parse_onnx_tensor(io::read_input_file(path, kMaxTensorBytes + (1 << 20), "ONNX tensor"), path);
  } catch (const io::InputFileError& e) {
    return Error{path, e.reason()};
  }
}

}  // namespace treesim::graph
