// NumPy .npy files (format versions 1.0, 2.0 and 3.0; little-endian, C order) for int8, uint8,
// int32, float16, bfloat16, float32 and float64 arrays: the exchange format for tensors given to and produced
// by treesim. A file is read whole and checked (magic, header, dtype, order, length); every problem is an
// NpyError whose one-line message names the file and what was expected.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/dtype.h"

namespace treesim::io {

template <typename T>
constexpr core::DType npy_dtype_of();
template <>
constexpr core::DType npy_dtype_of<std::int8_t>() {
  return core::DType::kInt8;
}
template <>
constexpr core::DType npy_dtype_of<std::uint8_t>() {
  return core::DType::kUInt8;
}
template <>
constexpr core::DType npy_dtype_of<std::int32_t>() {
  return core::DType::kInt32;
}
template <>
constexpr core::DType npy_dtype_of<float>() {
  return core::DType::kFloat32;
}
template <>
constexpr core::DType npy_dtype_of<double>() {
  return core::DType::kFloat64;
}

// An array: element type, shape (C order; empty = a scalar) and the raw little-endian bytes.
struct NpyArray {
  core::DType dtype = core::DType::kFloat64;
  std::vector<std::uint64_t> shape;
  std::vector<std::uint8_t> bytes;  // size() · core::dtype_bytes(dtype) bytes

  std::uint64_t size() const;  // number of elements: the product of shape (1 for a scalar)
};

// "(2, 3)" as NumPy prints a shape.
std::string shape_string(const std::vector<std::uint64_t>& shape);

class NpyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses the bytes of a .npy file; `name` (usually the path) starts every error message.
NpyArray parse_npy(std::string_view data, const std::string& name);
NpyArray read_npy(const std::string& path);

// The bytes of a version 1.0 .npy file (2.0 when the header needs more than 64 KiB).
// Throws NpyError when bytes.size() does not match the shape.
std::string to_npy_bytes(const NpyArray& array);
// Writes atomically (io::write_file_atomically): the file is whole or absent.
void write_npy(const std::string& path, const NpyArray& array);

// Builds an array from typed values. Throws NpyError when values.size() does not match the shape.
template <typename T>
NpyArray make_npy(std::vector<std::uint64_t> shape, const std::vector<T>& values) {
  NpyArray a;
  a.dtype = npy_dtype_of<T>();
  a.shape = std::move(shape);
  if (a.size() != values.size())
    throw NpyError("array of shape " + shape_string(a.shape) + " needs " + std::to_string(a.size()) +
                   " values, got " + std::to_string(values.size()));
  a.bytes.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(a.bytes.data(), values.data(), a.bytes.size());
  return a;
}

// The elements as T. Throws NpyError "NAME: expected dtype int8, got float32" when the array's
// dtype is not exactly T's.
template <typename T>
std::vector<T> npy_values(const NpyArray& a, const std::string& name) {
  if (a.dtype != npy_dtype_of<T>())
    throw NpyError(name + ": expected dtype " + core::dtype_name(npy_dtype_of<T>()) + ", got " +
                   core::dtype_name(a.dtype));
  std::vector<T> v(a.size());
  if (!v.empty()) std::memcpy(v.data(), a.bytes.data(), v.size() * sizeof(T));
  return v;
}

// float16, bfloat16 or float32 elements as float (exact); other dtypes: NpyError.
std::vector<float> npy_floats(const NpyArray& a, const std::string& name);

// Integer elements widened to int32, for any of int8, uint8 and int32 (float arrays: NpyError).
std::vector<std::int32_t> npy_integers(const NpyArray& a, const std::string& name);

}  // namespace treesim::io
