#include "sim/core/dtype.h"

namespace treesim::core {
namespace {

struct Info {
  DType type;
  std::size_t bytes;
  const char* name;
  const char* short_name;
  std::int64_t min, max;
};

constexpr Info kInfo[] = {
    {DType::kInt8, 1, "int8", "i8", -128, 127},
    {DType::kUInt8, 1, "uint8", "u8", 0, 255},
    {DType::kInt16, 2, "int16", "i16", -32768, 32767},
    {DType::kInt32, 4, "int32", "i32", INT32_MIN, INT32_MAX},
    {DType::kFloat32, 4, "float32", "f32", 0, 0},
    {DType::kFloat64, 8, "float64", "f64", 0, 0},
    {DType::kFloat16, 2, "float16", "f16", 0, 0},
    {DType::kBFloat16, 2, "bfloat16", "bf16", 0, 0},
};

const Info& info(DType t) { return kInfo[static_cast<std::size_t>(t)]; }

}  // namespace

std::size_t dtype_bytes(DType t) { return info(t).bytes; }
const char* dtype_name(DType t) { return info(t).name; }
const char* dtype_short_name(DType t) { return info(t).short_name; }

std::optional<DType> parse_dtype(std::string_view text) {
  for (const Info& i : kInfo)
    // float16 and bfloat16 are .npy input types only: no program, layout or option declares them.
    if (text == i.name && i.type != DType::kFloat16 && i.type != DType::kBFloat16) return i.type;
  return std::nullopt;
}

bool is_integer(DType t) {
  return t != DType::kFloat32 && t != DType::kFloat64 && t != DType::kFloat16 && t != DType::kBFloat16;
}
std::int64_t dtype_min(DType t) { return info(t).min; }
std::int64_t dtype_max(DType t) { return info(t).max; }

}  // namespace treesim::core
