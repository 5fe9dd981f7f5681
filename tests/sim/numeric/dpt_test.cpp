// The DPT codec against tests/data/dpt (encoder table, decoder on all 256 bytes) and the
// properties the DPT note states.
#include "sim/numeric/dpt.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "tests/sim/numeric/test_vectors.h"

namespace treesim::numeric {
namespace {

int hex_byte(const std::string& s) { return std::stoi(s, nullptr, 16); }

TEST(Dpt, AllValuesRoundTrip) {
  for (int v = 0; v < kDptValues; ++v) EXPECT_EQ(trits_value(dpt_decode(dpt_encode(value_trits(v)))), v) << v;
}

TEST(Dpt, EncoderMatchesTheTable) {
  const auto rows = testing::read_csv("dpt/dpt_table.csv");
  ASSERT_EQ(rows.size(), 243u);
  for (const auto& r : rows) {
    const int v = std::stoi(r.at("value"));
    EXPECT_EQ(trits_string(value_trits(v)), r.at("trits"));
    EXPECT_EQ(dpt_encode(value_trits(v)), std::stoi(r.at("dpt_byte"))) << "value " << v;
    EXPECT_EQ(dpt_encode(value_trits(v)), hex_byte(r.at("dpt_byte_hex"))) << "value " << v;
  }
}

TEST(Dpt, DecoderMatchesTheReferenceOnAllBytes) {
  const auto rows = testing::read_csv("dpt/dpt_decode.csv");
  ASSERT_EQ(rows.size(), 256u);
  for (const auto& r : rows) {
    const auto byte = static_cast<std::uint8_t>(std::stoi(r.at("byte")));
    const Trits5 t = dpt_decode(byte);
    EXPECT_EQ(trits_value(t), std::stoi(r.at("decoded_value"))) << "byte " << r.at("byte_hex");
    EXPECT_EQ(trits_string(t), r.at("decoded_trits")) << "byte " << r.at("byte_hex");
    EXPECT_EQ(dpt_encode(t), hex_byte(r.at("canonical_byte_hex"))) << "byte " << r.at("byte_hex");
  }
}

TEST(Dpt, UnusedCodesAreExactlyTheReferencesAliases) {
  int unused = 0;
  for (const auto& r : testing::read_csv("dpt/dpt_decode.csv")) {
    const auto byte = static_cast<std::uint8_t>(std::stoi(r.at("byte")));
    EXPECT_EQ(dpt_is_unused_code(byte), r.at("status") == "alias") << r.at("byte_hex");
    unused += dpt_is_unused_code(byte);
  }
  EXPECT_EQ(unused, 256 - kDptValues);
}

TEST(Dpt, UnusedCodesDecodeTo80161Or242) {
  std::set<int> values;
  for (int b = 0; b < 256; ++b)
    if (dpt_is_unused_code(static_cast<std::uint8_t>(b)))
      values.insert(trits_value(dpt_decode(static_cast<std::uint8_t>(b))));
  EXPECT_EQ(values, (std::set<int>{80, 161, 242}));
}

// Blog property: for v <= 71 the low 7 bits are (B2 << 4) | B1; v = 72 is the first where it fails.
TEST(Dpt, LowSevenBitsAreTheNibblesUpToValue71) {
  const auto nibbles = [](int v) {
    const Trits5 t = value_trits(v);
    return ((t[2] + 3 * t[3]) << 4) | (t[0] + 3 * t[1]);
  };
  for (int v = 0; v <= 71; ++v) EXPECT_EQ(dpt_encode(value_trits(v)) & 0x7F, nibbles(v)) << v;
  EXPECT_NE(dpt_encode(value_trits(72)) & 0x7F, nibbles(72));
}

TEST(Dpt, ZeroTritsEncodeToZero) { EXPECT_EQ(dpt_encode({0, 0, 0, 0, 0}), 0); }

TEST(Dpt, EncodingIsABijectionOntoTheUsedCodes) {
  std::set<int> codes;
  for (int v = 0; v < kDptValues; ++v) {
    const std::uint8_t b = dpt_encode(value_trits(v));
    EXPECT_FALSE(dpt_is_unused_code(b)) << v;
    codes.insert(b);
  }
  EXPECT_EQ(codes.size(), static_cast<std::size_t>(kDptValues));
}

TEST(Dpt, TritOfThreeIsAClearError) {
  try {
    dpt_encode({0, 0, 3, 0, 0});
    FAIL() << "no error";
  } catch (const TernaryError& e) {
    EXPECT_EQ(e.index(), 2u);
    EXPECT_STREQ(e.what(), "trit t2 = 3 is not a trit (expected 0, 1 or 2)");
  }
}

TEST(Dpt, ValidationReportsTheFirstUnusedCodeAndItsOffset) {
  const std::vector<std::uint8_t> ok = {0x00, 0x8B, 0xAB, 0x9B};
  EXPECT_FALSE(find_unused_dpt_code(ok.data(), ok.size()).has_value());
  const std::vector<std::uint8_t> bad = {0x00, 0x8B, 0x12, 0xCF, 0xFF};
  const auto found = find_unused_dpt_code(bad.data(), bad.size());
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->offset, 3u);
  EXPECT_EQ(found->byte, 0xCF);
  try {
    validate_dpt(bad.data(), bad.size(), "w.dpt");
    FAIL() << "no error";
  } catch (const TernaryError& e) {
    EXPECT_EQ(e.index(), 3u);
    EXPECT_STREQ(e.what(),
                 "w.dpt: byte 0xCF at offset 3 is not a DPT code (an unused code; the hardware would decode "
                 "it as 0x8B)");
  }
}

TEST(Dpt, TritsStringIsMostSignificantFirst) { EXPECT_EQ(trits_string({2, 2, 0, 0, 1}), "10022"); }

}  // namespace
}  // namespace treesim::numeric
