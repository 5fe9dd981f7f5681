// Whether a text is a plain decimal number, as the machine and quantization files write them:
// [+]digits[.digits][(e|E)[+|-]digits] (digits on at least one side of the point). std::stod alone
// would also accept hexadecimal floats ("0x1p3"), "inf", "nan" and leading spaces.
#pragma once

#include <cctype>
#include <cstddef>
#include <string_view>

namespace treesim::core {

inline bool is_decimal_number(std::string_view s, bool allow_minus = false) {
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '+' || (allow_minus && s[i] == '-'))) ++i;
  std::size_t mantissa = digits();
  if (i < s.size() && s[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

}  // namespace treesim::core
