// ONNX files by hand, in protobuf's wire format (test_tools does not link libonnx): enough to build
// the hostile models of the CLI tests (declared shapes, a node or two, tensors).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace treesim::testing::onnx_bytes {

inline std::string varint(std::uint64_t v) {
  std::string s;
  do {
    std::uint8_t b = v & 0x7f;
    v >>= 7;
    s.push_back(static_cast<char>(v ? b | 0x80 : b));
  } while (v);
  return s;
}
// A length-delimited field (strings, bytes, messages).
inline std::string field(int number, const std::string& bytes) {
  return static_cast<char>(number << 3 | 2) + varint(bytes.size()) + bytes;
}
// A varint field.
inline std::string number(int number, std::uint64_t v) { return static_cast<char>(number << 3) + varint(v); }

// TensorProto.DataType: FLOAT = 1, UINT8 = 2, INT8 = 3, INT32 = 6.
enum DataType : int { kFloat = 1, kUint8 = 2, kInt8 = 3, kInt32 = 6 };

// ValueInfoProto (name = 1, type = 2) of a tensor: TypeProto.tensor_type = 1, Tensor.elem_type = 1,
// .shape = 2, TensorShapeProto.dim = 1, Dimension.dim_value = 1 (a negative size: dim_param "N").
inline std::string value_info(const std::string& name, int elem_type, const std::vector<std::int64_t>& dims) {
  std::string shape;
  for (std::int64_t d : dims)
    shape += field(1, d < 0 ? field(2, "N") : number(1, static_cast<std::uint64_t>(d)));
  return field(1, name) +
         field(2, field(1, number(1, static_cast<std::uint64_t>(elem_type)) + field(2, shape)));
}
// NodeProto: input = 1, output = 2, name = 3, op_type = 4.
inline std::string node(const std::string& op, const std::vector<std::string>& inputs,
                        const std::vector<std::string>& outputs) {
  std::string n;
  for (const auto& i : inputs) n += field(1, i);
  for (const auto& o : outputs) n += field(2, o);
  return n + field(4, op);
}
// TensorProto: dims = 1, data_type = 2, name = 8, raw_data = 9.
inline std::string tensor(const std::string& name, int data_type, const std::vector<std::uint64_t>& dims,
                          const std::string& raw) {
  std::string t;
  for (std::uint64_t d : dims) t += number(1, d);
  return t + number(2, static_cast<std::uint64_t>(data_type)) + field(8, name) + field(9, raw);
}
// ModelProto (ir_version = 1, graph = 7, opset_import = 8 with version = 2) over GraphProto (node = 1,
// name = 2, initializer = 5, input = 11, output = 12).
inline std::string model(const std::vector<std::string>& nodes, const std::vector<std::string>& inputs,
                         const std::vector<std::string>& outputs,
                         const std::vector<std::string>& initializers = {}, std::uint64_t opset = 13) {
  std::string g;
  for (const auto& n : nodes) g += field(1, n);
  g += field(2, "g");
  for (const auto& t : initializers) g += field(5, t);
  for (const auto& i : inputs) g += field(11, i);
  for (const auto& o : outputs) g += field(12, o);
  return number(1, 8) + field(7, g) + field(8, number(2, opset));
}

}  // namespace treesim::testing::onnx_bytes
