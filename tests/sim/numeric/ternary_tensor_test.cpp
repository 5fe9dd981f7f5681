#include "sim/numeric/ternary_tensor.h"

#include <gtest/gtest.h>

#include <random>

#include "sim/numeric/dpt.h"
#include "sim/numeric/dpt_file.h"

namespace treesim::numeric {
namespace {

std::vector<std::int8_t> random_weights(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<std::int8_t> w(n);
  for (auto& x : w) x = static_cast<std::int8_t>(static_cast<int>(rng() % 3) - 1);
  return w;
}

TEST(TernaryTensor, LengthsZeroToElevenPackIntoCeilFifthBytesAndRoundTrip) {
  for (std::uint64_t n = 0; n <= 11; ++n) {
    const auto w = random_weights(n, static_cast<unsigned>(n));
    const PackedTernary p = pack_ternary(w, {n}, 0);
    EXPECT_EQ(p.bytes.size(), (n + 4) / 5) << n;
    EXPECT_EQ(p.trits_per_line(), n);
    EXPECT_EQ(unpack_ternary(p), w) << n;
  }
}

TEST(TernaryTensor, WeightsAreTritsPlusOneInSlotOrderAndTheTailIsPaddedWithWeightZero) {
  const PackedTernary p = pack_ternary({-1, 0, 1, 1, -1, 1, -1}, {7}, 0);
  ASSERT_EQ(p.bytes.size(), 2u);
  EXPECT_EQ(p.bytes[0], dpt_encode({0, 1, 2, 2, 0}));
  EXPECT_EQ(p.bytes[1], dpt_encode({2, 0, 1, 1, 1}));
}

// Packing along each axis of a 3-D tensor equals packing each line on its own.
TEST(TernaryTensor, PackingAlongAnAxisPacksEachLineSeparately) {
  const std::vector<std::uint64_t> shape = {3, 7, 4};
  const auto w = random_weights(3 * 7 * 4, 9);
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const PackedTernary p = pack_ternary(w, shape, axis);
    const auto packed = p.packed_shape();
    EXPECT_EQ(packed[axis], (shape[axis] + 4) / 5);
    EXPECT_EQ(unpack_ternary(p), w) << "axis " << axis;
    // Line through (i, ·, k) along axis 1: its bytes are at (i, b, k) of the packed shape.
    if (axis == 1) {
      for (std::uint64_t i = 0; i < 3; ++i)
        for (std::uint64_t k = 0; k < 4; ++k) {
          std::vector<std::int8_t> line;
          for (std::uint64_t j = 0; j < 7; ++j) line.push_back(w[(i * 7 + j) * 4 + k]);
          const PackedTernary alone = pack_ternary(line, {7}, 0);
          for (std::uint64_t b = 0; b < 2; ++b) EXPECT_EQ(p.bytes[(i * 2 + b) * 4 + k], alone.bytes[b]);
        }
    }
  }
}

TEST(TernaryTensor, WeightOfTwoIsAnErrorWithItsIndex) {
  try {
    pack_ternary({0, 1, -1, 2}, {4}, 0);
    FAIL() << "no error";
  } catch (const TernaryError& e) {
    EXPECT_EQ(e.index(), 3u);
    EXPECT_STREQ(e.what(), "weight 2 at index 3 is not ternary (expected -1, 0 or 1)");
  }
}

TEST(TernaryTensor, BadShapesAndAxesAreRejected) {
  EXPECT_THROW(pack_ternary({}, {}, 0), std::invalid_argument);
  EXPECT_THROW(pack_ternary({0, 0}, {2}, 1), std::invalid_argument);
  EXPECT_THROW(pack_ternary({0, 0}, {3}, 0), std::invalid_argument);
}

TEST(TernaryTensor, StrictUnpackRejectsAnUnusedCodeWithItsOffset) {
  PackedTernary p = pack_ternary(random_weights(20, 3), {2, 10}, 1);
  p.bytes[2] = 0xEF;
  try {
    unpack_ternary(p);
    FAIL() << "no error";
  } catch (const TernaryError& e) {
    EXPECT_EQ(e.index(), 2u);
  }
  EXPECT_NO_THROW(unpack_ternary(p, false));
}

TEST(TernaryTensor, StrictUnpackRejectsPaddingOtherThanWeightZero) {
  PackedTernary p = pack_ternary({1, 1, 1}, {3}, 0);
  p.bytes[0] = dpt_encode({2, 2, 2, 0, 1});
  EXPECT_THROW(unpack_ternary(p), TernaryError);
  EXPECT_EQ(unpack_ternary(p, false), (std::vector<std::int8_t>{1, 1, 1}));
}

TEST(DptFile, RoundTripsShapeAxisAndPayload) {
  const PackedTernary p = pack_ternary(random_weights(2 * 3 * 11, 4), {2, 3, 11}, 2);
  const PackedTernary q = parse_dpt_file(to_dpt_file_bytes(p), "w.dpt");
  EXPECT_EQ(q.shape, p.shape);
  EXPECT_EQ(q.axis, p.axis);
  EXPECT_EQ(q.bytes, p.bytes);
}

TEST(DptFile, HeaderIsTheDocumentedLayout) {
  const PackedTernary p = pack_ternary({1, 0, -1, 1, 0, 1, 1}, {7}, 0);
  const std::string f = to_dpt_file_bytes(p);
  ASSERT_EQ(f.size(), 40u + 8u + 2u);
  EXPECT_EQ(f.substr(0, 8), std::string("TSIMDPT\n"));
  EXPECT_EQ(f[8], 1);   // version
  EXPECT_EQ(f[12], 1);  // ndim
  EXPECT_EQ(f[16], 0);  // axis
  EXPECT_EQ(f[24], 7);  // trits per line
  EXPECT_EQ(f[32], 2);  // payload bytes
  EXPECT_EQ(f[40], 7);  // shape[0]
  EXPECT_EQ(static_cast<std::uint8_t>(f[48]), p.bytes[0]);
}

std::string dpt_error(const std::string& data) {
  try {
    parse_dpt_file(data, "w.dpt");
  } catch (const DptFileError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(DptFile, BadFilesGiveOneLineErrors) {
  const std::string good = to_dpt_file_bytes(pack_ternary({1, 0, -1, 1, 0, 1, 1}, {7}, 0));
  EXPECT_EQ(dpt_error("NOTADPT\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
            "w.dpt: not a .dpt file (expected the magic \"TSIMDPT\\n\" at the start)");
  EXPECT_EQ(dpt_error(good.substr(0, 20)), "w.dpt: truncated .dpt header (20 bytes, expected at least 40)");
  EXPECT_EQ(dpt_error(good.substr(0, good.size() - 1)),
            "w.dpt: truncated .dpt file: expected 2 payload bytes, got 1");
  std::string bad = good;
  bad[24] = 8;
  EXPECT_EQ(dpt_error(bad), "w.dpt: trit count 8 does not match shape[0] = 7");
  bad = good;
  bad[16] = 1;
  EXPECT_EQ(dpt_error(bad), "w.dpt: expected an axis below ndim 1, got 1");
  bad = good;
  bad[49] = static_cast<char>(0xBB);
  EXPECT_EQ(dpt_error(bad),
            "w.dpt: byte 0xBB at payload offset 1 (file offset 49) is not a DPT code (unused code)");
}

}  // namespace
}  // namespace treesim::numeric
