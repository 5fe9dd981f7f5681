// Sizes as checked arithmetic: every product or sum formed from user numbers (fan-outs, shapes,
// LM ranges) goes through these, so an overflow is reported instead of wrapping to a small number
// that then passes a bound check.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>

namespace treesim::core {

// a + b, or nullopt when it does not fit 64 bits.
inline std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b) {
  if (a > std::numeric_limits<std::uint64_t>::max() - b) return std::nullopt;
  return a + b;
}

// a · b, or nullopt when it does not fit 64 bits.
inline std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) return std::nullopt;
  return a * b;
}

// The product of a range of unsigned numbers (1 for an empty range), or nullopt on overflow.
// A zero anywhere makes the product 0 even when a prefix would overflow: the value is exact.
template <typename Range>
std::optional<std::uint64_t> checked_product(const Range& values) {
  std::uint64_t product = 1;
  bool overflow = false;
  for (const auto& v : values) {
    const auto x = static_cast<std::uint64_t>(v);
    if (x == 0) return 0;
    if (overflow) continue;
    const auto p = checked_mul(product, x);
    if (p)
      product = *p;
    else
      overflow = true;
  }
  if (overflow) return std::nullopt;
  return product;
}

inline std::optional<std::uint64_t> checked_product(std::initializer_list<std::uint64_t> values) {
  return checked_product<std::initializer_list<std::uint64_t>>(values);
}

// The sum of a range, or nullopt on overflow.
template <typename Range>
std::optional<std::uint64_t> checked_sum(const Range& values) {
  std::uint64_t sum = 0;
  for (const auto& v : values) {
    const auto s = checked_add(sum, static_cast<std::uint64_t>(v));
    if (!s) return std::nullopt;
    sum = *s;
  }
  return sum;
}

// Whether [offset, offset + length) lies inside [0, size): no wrap of offset + length.
inline bool range_fits(std::uint64_t offset, std::uint64_t length, std::uint64_t size) {
  return offset <= size && length <= size - offset;
}

}  // namespace treesim::core
