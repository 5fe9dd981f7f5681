// Float tensors quantized on load: every expectation below is computed by hand from
// q = nearbyint(clamp(v / scale + zero)) (ties to even), min/max and absmean calibration.
#include "sim/numeric/float_quant.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace treesim::numeric {
namespace {

TEST(QuantizeMatrix, TiesRoundToEven) {
  // v / 0.5: 0.5 → 0, 1.5 → 2, 2.5 → 2, −0.5 → 0, −1.5 → −2, −2.5 → −2.
  EXPECT_EQ(quantize_matrix({0.25f, 0.75f, 1.25f, -0.25f, -0.75f, -1.25f}, 6, {0.5f}, 0, DType::kInt8),
            (std::vector<std::int32_t>{0, 2, 2, 0, -2, -2}));
}

TEST(QuantizeMatrix, ZeroPointIsAddedBeforeRounding) {
  // 2.5 + 10 = 12.5 → 12 (even); −20.5 + 10 = −10.5 → saturated to uint8's 0 first.
  EXPECT_EQ(quantize_matrix({2.5f, -20.5f}, 2, {1.0f}, 10, DType::kUInt8),
            (std::vector<std::int32_t>{12, 0}));
}

TEST(QuantizeMatrix, SaturatesToTheTypeRange) {
  // 63.75 / 0.5 = 127.5: clamped to 127 before rounding; 1000 → 127, −1000 → −128; uint8 255.
  EXPECT_EQ(quantize_matrix({63.75f, 1000.0f, -1000.0f}, 3, {0.5f}, 0, DType::kInt8),
            (std::vector<std::int32_t>{127, 127, -128}));
  EXPECT_EQ(quantize_matrix({300.0f, -1.0f}, 2, {1.0f}, 0, DType::kUInt8),
            (std::vector<std::int32_t>{255, 0}));
}

TEST(QuantizeMatrix, PerColumnScalesFollowTheColumn) {
  // Column 0 scale 1, column 1 scale 0.25: 1.5 → 2 and 6; −0.125 → −0 → 0 and −0.5 → 0 (even).
  EXPECT_EQ(quantize_matrix({1.5f, 1.5f, -0.125f, -0.125f}, 2, {1.0f, 0.25f}, 0, DType::kInt8),
            (std::vector<std::int32_t>{2, 6, 0, 0}));
}

TEST(FirstNonFinite, FindsNanAndInfinity) {
  EXPECT_EQ(first_non_finite({1.0f, 2.0f}), std::nullopt);
  EXPECT_EQ(first_non_finite({1.0f, std::nanf(""), 3.0f}), std::optional<std::size_t>{1});
  EXPECT_EQ(first_non_finite({-std::numeric_limits<float>::infinity()}), std::optional<std::size_t>{0});
}

TEST(CalibrateMinmax, Int8CoversBothSidesOfZero) {
  // max 2.54 / 127 = 0.02; −min 1.28 / 128 = 0.01: the larger, 0.02 (f32 divisions).
  const std::vector<float> s =
      calibrate_minmax({2.54f, -1.28f, 0.5f}, 3, ScaleMask::kPerTensor, 0, DType::kInt8);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0], 2.54f / 127.0f);
}

TEST(CalibrateMinmax, PerColumnGivesOneScalePerColumn) {
  // uint8 around zero point 0: only the positive side has codes (255 of them).
  EXPECT_EQ(calibrate_minmax({5.1f, 0.0f, -3.0f, 0.0f}, 2, ScaleMask::kPerColumn, 0, DType::kUInt8),
            (std::vector<float>{5.1f / 255.0f, 1.0f}));
}

TEST(CalibrateMinmax, UsesTheZeroPointsDistanceToEachEnd) {
  // uint8, zero point 128: 127 codes above (2.54 / 127 = 0.02), 128 below (−(−5.12) / 128 = 0.04).
  EXPECT_EQ(calibrate_minmax({2.54f, -5.12f}, 2, ScaleMask::kPerTensor, 128, DType::kUInt8),
            (std::vector<float>{5.12f / 128.0f}));
}

TEST(CalibrateAbsmean, MeanOfMagnitudes) {
  EXPECT_EQ(calibrate_absmean({1.0f, -3.0f, 0.5f, -0.5f}, 2, ScaleMask::kPerTensor),
            (std::vector<float>{1.25f}));
  // Columns: (1, 0.5) → 0.75; (−3, −0.5) → 1.75; an all-zero column gets 1.
  EXPECT_EQ(calibrate_absmean({1.0f, -3.0f, 0.5f, -0.5f}, 2, ScaleMask::kPerColumn),
            (std::vector<float>{0.75f, 1.75f}));
  EXPECT_EQ(calibrate_absmean({0.0f, 0.0f}, 1, ScaleMask::kPerTensor), (std::vector<float>{1.0f}));
}

TEST(Ternarize, RoundsToEvenThenClips) {
  // w / 2: 0.5 → 0 (tie to even), 0.75 → 1, 1.5 → 2 → 1, −3 → −1.5 → −2 → −1, −0.4 → 0.
  EXPECT_EQ(ternarize({1.0f, 1.5f, 3.0f, -3.0f, -0.8f}, 5, {2.0f}),
            (std::vector<std::int8_t>{0, 1, 1, -1, 0}));
}

}  // namespace
}  // namespace treesim::numeric
