// A tensor of an imported model graph (ONNX): element type, shape and row-major bytes. Graph values
// may be int64 (shapes, axes) or float32 (the float side of QuantizeLinear), which the machine's
// DType does not name: this type is the graph layer's own and is turned into kernel operands here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/dtype.h"

namespace treesim::graph {

enum class ElemType { kFloat32, kUInt8, kInt8, kInt32, kInt64 };

const char* elem_name(ElemType t);  // "float32", "uint8", "int8", "int32", "int64"
std::size_t elem_bytes(ElemType t);
// The machine's type of an 8-bit or int32 element; nullopt for float32 and int64.
std::optional<core::DType> machine_dtype(ElemType t);

struct Tensor {
  ElemType type = ElemType::kFloat32;
  std::vector<std::uint64_t> shape;  // [] is a scalar
  std::vector<std::uint8_t> bytes;   // row-major, little-endian

  std::uint64_t count() const;  // the product of the shape (1 for a scalar)
  // Element i as a double (exact for every type but int64 beyond 2^53) and as an int64.
  double real(std::uint64_t i) const;
  std::int64_t integer(std::uint64_t i) const;
};

// "uint8[2,4]".
std::string describe(const Tensor& t);
std::string shape_text(const std::vector<std::uint64_t>& shape);

// A tensor of `shape` filled from int64 / double values, converted to `type` (no range checks).
Tensor make_tensor(ElemType type, std::vector<std::uint64_t> shape);
void set_integer(Tensor& t, std::uint64_t i, std::int64_t v);
void set_real(Tensor& t, std::uint64_t i, float v);

}  // namespace treesim::graph
