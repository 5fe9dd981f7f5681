// The element types of the whole codebase: program tensors, LM operands, .npy arrays, layouts and
// quantized values all name their type with this one enum, so no layer translates between enums.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace treesim::core {

// kFloat16 (IEEE half) and kBFloat16 (bfloat16) are input types only: .npy files quantized on load
// (sim/numeric/float_quant.h).
enum class DType { kInt8, kUInt8, kInt16, kInt32, kFloat32, kFloat64, kFloat16, kBFloat16 };

// Bytes per element.
std::size_t dtype_bytes(DType t);
// The canonical name, as program text, reports and messages write it: "int8", "uint8", ...
const char* dtype_name(DType t);
// The short name of layout summaries: "i8", "u8", "i16", "i32", "f32", "f64", "f16", "bf16".
const char* dtype_short_name(DType t);
// The canonical names only; nullopt for any other text.
std::optional<DType> parse_dtype(std::string_view text);

bool is_integer(DType t);
// The 8-bit quantized types (int8, uint8): MAC operands and requant outputs.
inline bool is_8bit(DType t) { return t == DType::kInt8 || t == DType::kUInt8; }
// The representable range of an integer type (int64 limits are not needed anywhere).
std::int64_t dtype_min(DType t);
std::int64_t dtype_max(DType t);

}  // namespace treesim::core
