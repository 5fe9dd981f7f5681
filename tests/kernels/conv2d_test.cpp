// conv2d's shape arithmetic and its host reference on cases worked by hand.
#include "kernels/conv2d/conv2d.h"

#include <gtest/gtest.h>

#include "sim/numeric/fixed_point.h"

namespace treesim::kernels {
namespace {

const numeric::OutputStage stage = [] {
  numeric::OutputStage out;
  out.multipliers = {numeric::quantize_multiplier(1.0)};
  return out;
}();

TEST(Conv2dShape, SamePaddingPutsTheOddPixelAtTheEnd) {
  EXPECT_EQ(same_padding(5, 3, 2, 1).begin, 1u);
  EXPECT_EQ(same_padding(5, 3, 2, 1).end, 1u);
  EXPECT_EQ(same_padding(6, 3, 2, 1).begin, 0u);
  EXPECT_EQ(same_padding(6, 3, 2, 1).end, 1u);
  EXPECT_EQ(same_padding(7, 3, 1, 2).begin, 2u);  // dilated: a 5-wide kernel
  EXPECT_EQ(same_padding(7, 3, 1, 2).end, 2u);
  ConvShape s;
  s.h = 6, s.w = 5, s.r = s.s = 3, s.stride_h = s.stride_w = 2;
  s.pad_bottom = 1, s.pad_left = s.pad_right = 1;
  EXPECT_EQ(s.out_h(), 3u);
  EXPECT_EQ(s.out_w(), 3u);
}

TEST(Conv2dReference, OnesThroughASamePaddedThreeByThreeCountTheTapsInsideTheImage) {
  ConvShape s;
  s.h = s.w = 3, s.r = s.s = 3, s.pad_top = s.pad_left = s.pad_bottom = s.pad_right = 1;
  const std::vector<std::int32_t> y =
      reference_conv2d(s, std::vector<std::int32_t>(9, 1), 0, std::vector<std::int32_t>(9, 1), 0, {}, &stage);
  EXPECT_EQ(y, (std::vector<std::int32_t>{4, 6, 4, 6, 9, 6, 4, 6, 4}));
}

TEST(Conv2dReference, PaddingTakesTheInputsZeroPointSoItAddsNothing) {
  ConvShape s;
  s.h = s.w = 1, s.r = s.s = 3, s.pad_top = s.pad_left = s.pad_bottom = s.pad_right = 1;
  // x = 5 with zero point 3 contributes 2 · (w − 0) at the centre tap only.
  const std::vector<std::int32_t> y =
      reference_conv2d(s, {5}, 3, std::vector<std::int32_t>(9, 7), 0, {10}, &stage);
  EXPECT_EQ(y, (std::vector<std::int32_t>{24}));
}

TEST(Conv2dReference, DepthwiseGroupsSeeOnlyTheirOwnChannel) {
  ConvShape s;
  s.h = s.w = 1, s.c = 2, s.k = 2, s.groups = 2;
  // X = (3, 5); W is (Cg·R·S)×K = 1×2: filter 0 weighs 2, filter 1 weighs −1.
  const std::vector<std::int32_t> y = reference_conv2d(s, {3, 5}, 0, {2, -1}, 0, {}, &stage);
  EXPECT_EQ(y, (std::vector<std::int32_t>{6, -5}));
}

TEST(Conv2dShape, ChannelsThatGroupsDoNotDivideAreRefusedNamingGroups) {
  ConvShape s;
  s.h = s.w = 4, s.c = 6, s.k = 4, s.groups = 4;
  const core::Errors e = conv_shape_errors(s);
  ASSERT_FALSE(e.empty());
  EXPECT_EQ(e[0].where, "--groups");
}

}  // namespace
}  // namespace treesim::kernels
