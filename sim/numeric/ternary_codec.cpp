#include "sim/numeric/ternary_codec.h"

#include <fmt/format.h>

namespace treesim::numeric {

const char* to_string(TernaryCodec c) {
  switch (c) {
    case TernaryCodec::kDpt:
      return "dpt";
    case TernaryCodec::kBct:
      return "bct";
    case TernaryCodec::kBase3:
      return "base3";
    case TernaryCodec::kBase243PreDiv:
      return "base243_prediv";
  }
  return "?";
}

int trits_per_byte(TernaryCodec c) { return c == TernaryCodec::kBct ? 4 : 5; }

std::size_t encoded_size(TernaryCodec c, std::size_t trits) {
  const std::size_t per = static_cast<std::size_t>(trits_per_byte(c));
  return (trits + per - 1) / per;
}

std::uint8_t encode_chunk(TernaryCodec c, const std::uint8_t* s) {
  switch (c) {
    case TernaryCodec::kDpt:
      return dpt_encode({s[0], s[1], s[2], s[3], s[4]});
    case TernaryCodec::kBct:
      return static_cast<std::uint8_t>(s[0] | s[1] << 2 | s[2] << 4 | s[3] << 6);
    case TernaryCodec::kBase3:
      return static_cast<std::uint8_t>(s[0] + 3 * (s[1] + 3 * (s[2] + 3 * (s[3] + 3 * s[4]))));
    case TernaryCodec::kBase243PreDiv: {
      const unsigned v =
          s[4] + 3u * (s[3] + 3u * (s[2] + 3u * (s[1] + 3u * s[0])));  // slot 0 most significant
      return static_cast<std::uint8_t>((256 * v + 255) /
                                       243);  // the larger preimage (dpt.md, commit c164f3d)
    }
  }
  return 0;
}

bool decode_chunk(TernaryCodec c, std::uint8_t byte, std::uint8_t* s) {
  switch (c) {
    case TernaryCodec::kDpt: {
      const Trits5 t = dpt_decode(byte);
      for (int i = 0; i < 5; ++i) s[i] = t[i];
      return true;
    }
    case TernaryCodec::kBct:
      for (int i = 0; i < 4; ++i) {
        s[i] = static_cast<std::uint8_t>((byte >> (2 * i)) & 3);
        if (s[i] == 3) return false;
      }
      return true;
    case TernaryCodec::kBase3: {
      if (byte >= 243) return false;
      unsigned v = byte;
      for (int i = 0; i < 5; ++i, v /= 3) s[i] = static_cast<std::uint8_t>(v % 3);
      return true;
    }
    case TernaryCodec::kBase243PreDiv: {
      // Five times: multiply by 3 as a 16-bit number; the high byte is the next trit (MS first).
      unsigned v = byte;
      for (int i = 0; i < 5; ++i) {
        v *= 3;
        s[i] = static_cast<std::uint8_t>(v >> 8);
        v &= 0xFF;
      }
      return true;
    }
  }
  return false;
}

std::vector<std::uint8_t> encode_trits(TernaryCodec c, const std::uint8_t* trits, std::size_t n,
                                       std::uint8_t pad_trit) {
  if (pad_trit > 2)
    throw TernaryError(fmt::format("padding trit {} is not a trit (expected 0, 1 or 2)", pad_trit), 0);
  const std::size_t per = static_cast<std::size_t>(trits_per_byte(c));
  std::vector<std::uint8_t> out(encoded_size(c, n));
  for (std::size_t b = 0; b < out.size(); ++b) {
    std::uint8_t slots[5] = {pad_trit, pad_trit, pad_trit, pad_trit, pad_trit};
    for (std::size_t i = 0; i < per && b * per + i < n; ++i) {
      const std::size_t at = b * per + i;
      if (trits[at] > 2)
        throw TernaryError(
            fmt::format("trit {} at index {} is not a trit (expected 0, 1 or 2)", trits[at], at), at);
      slots[i] = trits[at];
    }
    out[b] = encode_chunk(c, slots);
  }
  return out;
}

std::vector<std::uint8_t> decode_trits(TernaryCodec c, const std::uint8_t* bytes, std::size_t size,
                                       std::size_t n, bool strict) {
  const std::size_t per = static_cast<std::size_t>(trits_per_byte(c));
  const std::size_t need = encoded_size(c, n);
  if (size < need)
    throw TernaryError(fmt::format("{} trits need {} {} bytes, got {}", n, need, to_string(c), size), size);
  if (strict && c == TernaryCodec::kDpt) validate_dpt(bytes, need, "DPT stream");
  std::vector<std::uint8_t> out(n);
  for (std::size_t b = 0; b < need; ++b) {
    std::uint8_t slots[5];
    if (!decode_chunk(c, bytes[b], slots))
      throw TernaryError(
          fmt::format("byte 0x{:02X} at offset {} is not a {} code", bytes[b], b, to_string(c)), b);
    for (std::size_t i = 0; i < per && b * per + i < n; ++i) out[b * per + i] = slots[i];
  }
  return out;
}

}  // namespace treesim::numeric
