#include "kernels/graph/tensor.h"

#include <cstring>

namespace treesim::graph {

const char* elem_name(ElemType t) {
  switch (t) {
    case ElemType::kFloat32:
      return "float32";
    case ElemType::kUInt8:
      return "uint8";
    case ElemType::kInt8:
      return "int8";
    case ElemType::kInt32:
      return "int32";
    case ElemType::kInt64:
      return "int64";
  }
  return "?";
}

std::size_t elem_bytes(ElemType t) {
  switch (t) {
    case ElemType::kUInt8:
    case ElemType::kInt8:
      return 1;
    case ElemType::kFloat32:
    case ElemType::kInt32:
      return 4;
    case ElemType::kInt64:
      return 8;
  }
  return 1;
}

std::optional<core::DType> machine_dtype(ElemType t) {
  switch (t) {
    case ElemType::kUInt8:
      return core::DType::kUInt8;
    case ElemType::kInt8:
      return core::DType::kInt8;
    case ElemType::kInt32:
      return core::DType::kInt32;
    default:
      return std::nullopt;
  }
}

std::uint64_t Tensor::count() const {
  std::uint64_t n = 1;
  for (std::uint64_t d : shape) n *= d;
  return n;
}

double Tensor::real(std::uint64_t i) const {
  const std::uint8_t* p = bytes.data() + i * elem_bytes(type);
  switch (type) {
    case ElemType::kFloat32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    default:
      return static_cast<double>(integer(i));
  }
}

std::int64_t Tensor::integer(std::uint64_t i) const {
  const std::uint8_t* p = bytes.data() + i * elem_bytes(type);
  switch (type) {
    case ElemType::kUInt8:
      return *p;
    case ElemType::kInt8:
      return static_cast<std::int8_t>(*p);
    case ElemType::kInt32: {
      std::int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    case ElemType::kInt64: {
      std::int64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
    case ElemType::kFloat32:
      return static_cast<std::int64_t>(real(i));
  }
  return 0;
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string describe(const Tensor& t) { return elem_name(t.type) + shape_text(t.shape); }

Tensor make_tensor(ElemType type, std::vector<std::uint64_t> shape) {
  Tensor t;
  t.type = type;
  t.shape = std::move(shape);
  t.bytes.assign(t.count() * elem_bytes(type), 0);
  return t;
}

void set_integer(Tensor& t, std::uint64_t i, std::int64_t v) {
  std::uint8_t* p = t.bytes.data() + i * elem_bytes(t.type);
  switch (t.type) {
    case ElemType::kUInt8:
    case ElemType::kInt8:
      *p = static_cast<std::uint8_t>(v);
      return;
    case ElemType::kInt32: {
      const auto w = static_cast<std::int32_t>(v);
      std::memcpy(p, &w, 4);
      return;
    }
    case ElemType::kInt64:
      std::memcpy(p, &v, 8);
      return;
    case ElemType::kFloat32:
      set_real(t, i, static_cast<float>(v));
      return;
  }
}

void set_real(Tensor& t, std::uint64_t i, float v) {
  if (t.type != ElemType::kFloat32) return set_integer(t, i, static_cast<std::int64_t>(v));
  std::memcpy(t.bytes.data() + i * 4, &v, 4);
}

}  // namespace treesim::graph
