// DPT and its baselines as trit streams: each codec against its table in tests/data/dpt, and
// stream lengths that are not a multiple of the chunk.
#include "sim/numeric/ternary_codec.h"

#include <gtest/gtest.h>

#include <random>

#include "tests/sim/numeric/test_vectors.h"

namespace treesim::numeric {
namespace {

struct CodecFiles {
  TernaryCodec codec;
  const char* prefix;
};
constexpr CodecFiles kBaselines[] = {{TernaryCodec::kBct, "bct"},
                                     {TernaryCodec::kBase3, "base3"},
                                     {TernaryCodec::kBase243PreDiv, "base243_prediv"}};

std::vector<std::uint8_t> digits(const std::string& s) {
  std::vector<std::uint8_t> d;
  for (char c : s) d.push_back(static_cast<std::uint8_t>(c - '0'));
  return d;
}

TEST(TernaryCodec, BaselineEncodersMatchTheirTables) {
  for (const auto& [codec, prefix] : kBaselines) {
    const auto rows = testing::read_csv(std::string("dpt/") + prefix + "_table.csv");
    ASSERT_FALSE(rows.empty());
    for (const auto& r : rows) {
      const auto slots = digits(r.at("api_slice"));  // slot 0 first
      ASSERT_EQ(slots.size(), static_cast<std::size_t>(trits_per_byte(codec)));
      EXPECT_EQ(encode_chunk(codec, slots.data()), std::stoi(r.at("byte")))
          << prefix << " " << r.at("api_slice");
    }
  }
}

TEST(TernaryCodec, BaselineDecodersMatchTheirTablesOnAllBytes) {
  for (const auto& [codec, prefix] : kBaselines) {
    const auto rows = testing::read_csv(std::string("dpt/") + prefix + "_decode.csv");
    ASSERT_EQ(rows.size(), 256u);
    for (const auto& r : rows) {
      const auto byte = static_cast<std::uint8_t>(std::stoi(r.at("byte")));
      std::uint8_t slots[5];
      const bool ok = decode_chunk(codec, byte, slots);
      EXPECT_EQ(ok, r.at("status") != "invalid") << prefix << " " << r.at("byte_hex");
      if (!ok) continue;
      // decoded_trits is most significant first in the codec's own weights: for base243_prediv
      // that is slot order; for the others slot 0 is least significant.
      std::string got;
      for (int i = 0; i < trits_per_byte(codec); ++i) got += static_cast<char>('0' + slots[i]);
      if (codec != TernaryCodec::kBase243PreDiv) got = std::string(got.rbegin(), got.rend());
      EXPECT_EQ(got, r.at("decoded_trits")) << prefix << " " << r.at("byte_hex");
      EXPECT_EQ(encode_chunk(codec, slots), std::stoi(r.at("canonical_byte_hex"), nullptr, 16))
          << prefix << " " << r.at("byte_hex");
    }
  }
}

TEST(TernaryCodec, DptStreamOfTheReferenceTestRoundTripsInTwoBytes) {
  const std::vector<std::uint8_t> trits = {0, 2, 1, 1, 0, 1, 0, 2, 2};  // the reference crate's 9-trit stream
  const auto bytes = encode_trits(TernaryCodec::kDpt, trits.data(), trits.size());
  EXPECT_EQ(bytes.size(), 2u);
  EXPECT_EQ(decode_trits(TernaryCodec::kDpt, bytes.data(), bytes.size(), trits.size()), trits);
  EXPECT_EQ(encode_trits(TernaryCodec::kBct, trits.data(), trits.size()).size(), 3u);
}

// Every codec, every length 0..11, random trits: the sizes are ceil(n/per) and the stream round-trips.
TEST(TernaryCodec, StreamsOfLength0To11RoundTripInEveryCodec) {
  std::mt19937 rng(5);
  for (TernaryCodec c :
       {TernaryCodec::kDpt, TernaryCodec::kBct, TernaryCodec::kBase3, TernaryCodec::kBase243PreDiv}) {
    const std::size_t per = static_cast<std::size_t>(trits_per_byte(c));
    for (std::size_t n = 0; n <= 11; ++n) {
      std::vector<std::uint8_t> trits(n);
      for (auto& t : trits) t = static_cast<std::uint8_t>(rng() % 3);
      const auto bytes = encode_trits(c, trits.data(), n, 1);
      EXPECT_EQ(bytes.size(), (n + per - 1) / per) << to_string(c) << " n=" << n;
      EXPECT_EQ(decode_trits(c, bytes.data(), bytes.size(), n), trits) << to_string(c) << " n=" << n;
    }
  }
}

TEST(TernaryCodec, TailIsPaddedWithThePadTrit) {
  const std::vector<std::uint8_t> trits = {2, 0};
  const auto bytes = encode_trits(TernaryCodec::kDpt, trits.data(), trits.size(), 1);
  EXPECT_EQ(bytes[0], dpt_encode({2, 0, 1, 1, 1}));
  // The reference crate pads with trit 0: then a k-trit tail gets the byte of its own value.
  EXPECT_EQ(encode_trits(TernaryCodec::kDpt, trits.data(), trits.size(), 0)[0], dpt_encode({2, 0, 0, 0, 0}));
}

TEST(TernaryCodec, TritOfThreeInAStreamIsAnErrorWithItsIndex) {
  const std::vector<std::uint8_t> trits = {0, 1, 2, 0, 1, 2, 3};
  try {
    encode_trits(TernaryCodec::kDpt, trits.data(), trits.size());
    FAIL() << "no error";
  } catch (const TernaryError& e) {
    EXPECT_EQ(e.index(), 6u);
    EXPECT_STREQ(e.what(), "trit 3 at index 6 is not a trit (expected 0, 1 or 2)");
  }
}

TEST(TernaryCodec, RejectedBytesAreErrorsWithTheirOffset) {
  const std::vector<std::uint8_t> base3 = {0, 242, 243};
  try {
    decode_trits(TernaryCodec::kBase3, base3.data(), base3.size(), 15);
    FAIL() << "no error";
  } catch (const TernaryError& e) {
    EXPECT_EQ(e.index(), 2u);
    EXPECT_STREQ(e.what(), "byte 0xF3 at offset 2 is not a base3 code");
  }
  const std::vector<std::uint8_t> bct = {0x03};
  EXPECT_THROW(decode_trits(TernaryCodec::kBct, bct.data(), bct.size(), 1), TernaryError);
}

TEST(TernaryCodec, StrictDptDecodingRejectsUnusedCodes) {
  const std::vector<std::uint8_t> bytes = {0x00, 0xFF};
  EXPECT_NO_THROW(decode_trits(TernaryCodec::kDpt, bytes.data(), bytes.size(), 10));
  try {
    decode_trits(TernaryCodec::kDpt, bytes.data(), bytes.size(), 10, true);
    FAIL() << "no error";
  } catch (const TernaryError& e) {
    EXPECT_EQ(e.index(), 1u);
  }
}

TEST(TernaryCodec, TooFewBytesIsAnError) {
  const std::vector<std::uint8_t> bytes = {0x00};
  EXPECT_THROW(decode_trits(TernaryCodec::kDpt, bytes.data(), bytes.size(), 6), TernaryError);
}

}  // namespace
}  // namespace treesim::numeric
