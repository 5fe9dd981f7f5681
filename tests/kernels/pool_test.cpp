// The pooling references on cases worked by hand.
#include "kernels/pool/pool.h"

#include <gtest/gtest.h>

#include "sim/numeric/fixed_point.h"

namespace treesim::kernels {
namespace {

AvgPoolQuant average_of(std::uint64_t taps, numeric::Rounding rounding, std::int32_t x_zero = 0) {
  AvgPoolQuant q;
  q.x_zero = x_zero;
  q.out.rounding = rounding;
  q.out.multipliers = {numeric::quantize_multiplier(1.0 / static_cast<double>(taps), rounding)};
  return q;
}

TEST(AvgPoolReference, AHalfRoundsAwayFromZeroInFixedPointAndToEvenInFloat) {
  ConvShape s;
  s.h = s.w = 2, s.r = s.s = 2, s.stride_h = s.stride_w = 2;
  const std::vector<std::uint8_t> x{1, 2, 3, 4};  // the sum 10 over 4 taps: 2.5
  EXPECT_EQ(reference_avgpool(s, average_of(4, numeric::Rounding::kDouble), x), std::vector<std::uint8_t>{3});
  EXPECT_EQ(reference_avgpool(s, average_of(4, numeric::Rounding::kFloat), x), std::vector<std::uint8_t>{2});
}

TEST(AvgPoolReference, PaddingCountsAsTheZeroPointSoItAddsNothingButItsTap) {
  ConvShape s;
  s.h = s.w = 1, s.r = s.s = 3, s.pad_top = s.pad_left = s.pad_bottom = s.pad_right = 1;
  // (8 − 2) / 9 = 0.67: one code above the output zero point 0.
  EXPECT_EQ(reference_avgpool(s, average_of(9, numeric::Rounding::kDouble, 2), {8}),
            std::vector<std::uint8_t>{1});
}

TEST(MaxPoolReference, PaddingNeverWinsEvenWhenEveryValueIsNegative) {
  ConvShape s;
  s.h = 1, s.w = 2, s.r = 1, s.s = 3, s.pad_left = s.pad_right = 1;
  const std::vector<std::uint8_t> x{static_cast<std::uint8_t>(-5), static_cast<std::uint8_t>(-7)};
  EXPECT_EQ(reference_maxpool(s, core::DType::kInt8, x), (std::vector<std::uint8_t>{251, 251}));  // −5, −5
}

}  // namespace
}  // namespace treesim::kernels
