// Double-rounding requantization of LM bytes with AVX2 (requant.cpp calls it where the CPU has
// AVX2; the results are the portable loop's, bit for bit).
#pragma once

#include <cstddef>
#include <cstdint>

namespace treesim::numeric {

// The per-channel constants of double rounding: multipliers, left shifts and right shifts, each
// array padded with zeros to a multiple of 8 channels; the output zero point and clamp range.
struct RequantLanes {
  const std::int32_t* mult = nullptr;
  const std::int32_t* left = nullptr;
  const std::int32_t* right = nullptr;
  std::size_t channels = 0;
  std::int32_t zero = 0, lo = 0, hi = 0;
};

bool requant_avx2_available();

// acc: rows × channels little-endian int32 bytes; bias: channels int32 bytes or null (added with
// wrap-around); out: the 8-bit codes.
void requantize_double_bytes_avx2(const std::uint8_t* acc, const std::uint8_t* bias, std::size_t rows,
                                  const RequantLanes& p, std::uint8_t* out);

}  // namespace treesim::numeric
