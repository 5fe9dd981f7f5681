// The fast table decoder must equal the bit-logic decoder it is built from.
#include "sim/numeric/ternary_lut.h"

#include <gtest/gtest.h>

#include <random>

namespace treesim::numeric {
namespace {

constexpr TernaryCodec kCodecs[] = {TernaryCodec::kDpt, TernaryCodec::kBct, TernaryCodec::kBase3,
                                    TernaryCodec::kBase243PreDiv};

TEST(TernaryLut, DptWeightsEqualTheScalarDecoderOnEveryByte) {
  for (int b = 0; b < 256; ++b) {
    const auto byte = static_cast<std::uint8_t>(b);
    std::int8_t w[5];
    dpt_decode_weights(&byte, 1, w);
    const Trits5 t = dpt_decode(byte);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(w[i], t[i] - 1) << "byte " << b << " slot " << i;
  }
}

TEST(TernaryLut, EveryCodecsTritsEqualItsScalarDecoderOnEveryValidByte) {
  for (TernaryCodec c : kCodecs) {
    const TernaryLut lut(c, false);
    for (int b = 0; b < 256; ++b) {
      const auto byte = static_cast<std::uint8_t>(b);
      std::uint8_t expected[5], got[5];
      if (!decode_chunk(c, byte, expected)) continue;
      lut.decode(&byte, 1, got);
      for (int i = 0; i < trits_per_byte(c); ++i) EXPECT_EQ(got[i], expected[i]) << to_string(c) << " " << b;
    }
  }
}

// Random buffers of many lengths, so the unrolled loop, its remainder and the last byte are all hit;
// a guard byte after the output must stay untouched.
TEST(TernaryLut, BulkDecodeEqualsScalarDecodeOnRandomBuffers) {
  std::mt19937 rng(11);
  for (TernaryCodec c : kCodecs) {
    const TernaryLut lut(c, true);
    const std::size_t per = static_cast<std::size_t>(trits_per_byte(c));
    for (std::size_t n : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 63, 64, 65, 1000, 4099}) {
      std::vector<std::uint8_t> in(n);
      const auto valid = [c](std::uint8_t b) {
        std::uint8_t s[5];
        return decode_chunk(c, b, s);
      };
      for (auto& b : in) {
        do b = static_cast<std::uint8_t>(rng());
        while (!valid(b));
      }
      std::vector<std::int8_t> out(n * per + 1, 42);
      lut.decode(in.data(), n, out.data());
      const std::vector<std::uint8_t> trits = decode_trits(c, in.data(), n, n * per);
      for (std::size_t i = 0; i < n * per; ++i)
        ASSERT_EQ(out[i], trits[i] - 1) << to_string(c) << " n=" << n << " i=" << i;
      EXPECT_EQ(out[n * per], 42) << to_string(c) << " n=" << n;
    }
  }
}

TEST(TernaryLut, RejectedBytesDecodeAsZeroWeights) {
  const TernaryLut lut(TernaryCodec::kBase3, true);
  const std::uint8_t byte = 250;
  std::int8_t w[5] = {9, 9, 9, 9, 9};
  lut.decode(&byte, 1, w);
  for (std::int8_t x : w) EXPECT_EQ(x, 0);
}

}  // namespace
}  // namespace treesim::numeric
