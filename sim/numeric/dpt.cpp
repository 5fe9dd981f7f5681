#include "sim/numeric/dpt.h"

#include <fmt/format.h>

namespace treesim::numeric {

int trits_value(const Trits5& t) { return t[0] + 3 * (t[1] + 3 * (t[2] + 3 * (t[3] + 3 * t[4]))); }

Trits5 value_trits(int value) {
  Trits5 t{};
  for (auto& trit : t) {
    trit = static_cast<std::uint8_t>(value % 3);
    value /= 3;
  }
  return t;
}

std::string trits_string(const Trits5& t) {
  std::string s;
  for (int i = 4; i >= 0; --i) s += static_cast<char>('0' + t[i]);
  return s;
}

std::uint8_t dpt_encode(const Trits5& t) {
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t[i] > 2)
      throw TernaryError(fmt::format("trit t{} = {} is not a trit (expected 0, 1 or 2)", i, t[i]), i);
  const unsigned b1 = t[0] + 3u * t[1];  // 0..8
  const unsigned b2 = t[2] + 3u * t[3];
  const unsigned a = t[4];  // written as a 2-bit field 00/01/10 where it has room
  const bool large1 = b1 == 8, large2 = b2 == 8;
  if (!large1 && !large2)  // SSS and LSS: nibbles B2, B1; t4 = 0/1 in x3, t4 = 2 sets x7 only
    return static_cast<std::uint8_t>(b2 << 4 | b1 | (a == 2 ? 0x80u : a << 3));
  if (large1 && !large2) return static_cast<std::uint8_t>(0x88u | b2 << 4 | a);  // SSL, LSL
  if (!large1 && large2) return static_cast<std::uint8_t>(0x8Cu | b1 << 4 | a);  // SLS, LLS
  return static_cast<std::uint8_t>(0x8Bu | a << 4);                              // SLL, LLL
}

Trits5 dpt_decode(std::uint8_t byte) {
  const unsigned x = byte;
  const bool x7 = x & 0x80, x5 = x & 0x20, x4 = x & 0x10, x3 = x & 0x08, x2 = x & 0x04, x1 = x & 0x02,
             x0 = x & 0x01;
  const unsigned high = (x >> 4) & 7, low = x & 7;
  unsigned b1, b2, t4;
  if (!x7 || !x3) {  // both blocks small
    b1 = low;
    b2 = high;
    t4 = x7 ? 2 : (x3 ? 1 : 0);
  } else if (!(x1 && x0)) {  // one block large: x2 says which; t4 in x1..x0
    t4 = x1 ? 2 : (x0 ? 1 : 0);
    b1 = x2 ? high : 8;
    b2 = x2 ? 8 : high;
  } else {  // both large: t4 in x5..x4; x6, x2 (and x4 when x5) are don't-care
    b1 = b2 = 8;
    t4 = x5 ? 2 : (x4 ? 1 : 0);
  }
  return {static_cast<std::uint8_t>(b1 % 3), static_cast<std::uint8_t>(b1 / 3),
          static_cast<std::uint8_t>(b2 % 3), static_cast<std::uint8_t>(b2 / 3),
          static_cast<std::uint8_t>(t4)};
}

std::optional<DptBadByte> find_unused_dpt_code(const std::uint8_t* data, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i)
    if (dpt_is_unused_code(data[i])) return DptBadByte{i, data[i]};
  return std::nullopt;
}

void validate_dpt(const std::uint8_t* data, std::size_t size, const std::string& what) {
  if (auto bad = find_unused_dpt_code(data, size))
    throw TernaryError(
        fmt::format("{}: byte 0x{:02X} at offset {} is not a DPT code (an unused code; the hardware "
                    "would decode it as 0x{:02X})",
                    what, bad->byte, bad->offset, dpt_encode(dpt_decode(bad->byte))),
        bad->offset);
}

}  // namespace treesim::numeric
