// What seeded problems of the quantized kernels (qgemm, tgemm, conv2d) read alike from their options:
// an operand type (--dtype-*), a zero point (given, or 128 for u8 and 0 for s8), and the output stage
// of --dtype-out, --out-zero, --act and --rounding (without its multipliers).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include <fmt/format.h>

#include "kernels/kernel.h"
#include "sim/numeric/requant.h"

namespace treesim::kernels {

// The specs of those options: a size (unsigned, at least 1; a default or none), an operand type
// (u8/s8, also uint8/int8; default s8) and a zero point (any int32; none by default).
OptionSpec size_option(const char* name, const char* help,
                       std::optional<std::uint64_t> fallback = std::nullopt);
OptionSpec dtype_option(const char* name, const char* help);
// A seeded GEMM's --m, --n and --k: an error naming the missing ones ("--n and --k are missing: give
// --m, --n and --k (or FILES)"), or none when all three are given.
core::Errors gemm_sizes_given(const Options& o, const char* files);
OptionSpec zero_option(const char* name, const char* help);
// --act (none, relu, relu6; default none) and --rounding (double, single, double_upward, float;
// default double), with their usual help unless given.
OptionSpec act_option(const char* help = "none, relu or relu6 (output scale 1/20)");
OptionSpec rounding_option(const char* help =
                               "The requant arithmetic: double (TFLite reference), single, "
                               "double_upward or float (ONNX Runtime's)");

// A text option holding a positive number (float32 or double, read as strtof/strtod read it), finite,
// and at most `most` (written `most_text`) when given; else an error naming the option: "'X' is not a
// positive number[ of at most MOST]".
template <typename T>
Result<T> positive_number_option(const Options& o, const char* name, T most = std::numeric_limits<T>::max(),
                                 const char* most_text = nullptr) {
  const std::string text = o.text(name);
  char* end = nullptr;
  T v = 0;
  if constexpr (std::is_same_v<T, float>) {
    if (!text.empty()) v = std::strtof(text.c_str(), &end);
  } else {
    if (!text.empty()) v = std::strtod(text.c_str(), &end);
  }
  if (text.empty() || *end != '\0' || !(v > 0) || !(v <= most))
    return core::Error{option_flag(name),
                       fmt::format("'{}' is not a positive number{}", text,
                                   most_text ? fmt::format(" of at most {}", most_text) : "")};
  return v;
}

// "u8"/"uint8" → uint8, anything else (the choices allow only "s8"/"int8") → int8.
core::DType option_dtype(const std::string& text);
// Option `name`'s zero point, or the type's default: 128 for uint8, 0 for int8.
std::int32_t option_zero(const Options& o, const char* name, core::DType type);
// The output stage's type, zero point and clamp (--act relu clamps at the zero point, relu6 also at
// zero point + 120: seeded problems take an output scale of 1/20) and rounding (when the kernel has
// --rounding); no multipliers.
numeric::OutputStage seeded_output_stage(const Options& o);

}  // namespace treesim::kernels
