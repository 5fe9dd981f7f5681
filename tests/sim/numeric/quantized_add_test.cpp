// The quantized add's arithmetic on cases worked by hand.
#include "sim/numeric/quantized_add.h"

#include <gtest/gtest.h>

namespace treesim::numeric {
namespace {

AddStage stage(float a_scale, float b_scale, std::int32_t out_zero = 0) {
  AddStage s;
  s.a_scale = a_scale, s.b_scale = b_scale, s.out_zero = out_zero;
  return s;
}

TEST(QuantizedAdd, AHalfRoundsToEven) {
  EXPECT_EQ(quantized_add(1, 2, stage(0.5f, 0.5f)), 2);     // 1.5 → 2
  EXPECT_EQ(quantized_add(2, 3, stage(0.5f, 0.5f)), 2);     // 2.5 → 2
  EXPECT_EQ(quantized_add(-1, -2, stage(0.5f, 0.5f)), -2);  // −1.5 → −2
}

TEST(QuantizedAdd, ZeroPointsComeOffBeforeTheScalesAndTheOutputsGoesOnAfter) {
  AddStage s = stage(2.0f, 1.0f, 5);
  s.a_dtype = s.b_dtype = s.out_dtype = core::DType::kUInt8;
  s.a_zero = 100, s.b_zero = 128, s.act_min = 0, s.act_max = 255;
  EXPECT_EQ(quantized_add(103, 120, s), 2 * 3 - 8 + 5);
}

TEST(QuantizedAdd, TheResultSaturatesAndClampsToTheActivationRange) {
  EXPECT_EQ(quantized_add(127, 127, stage(1.0f, 1.0f)), 127);
  EXPECT_EQ(quantized_add(-128, -128, stage(1.0f, 1.0f)), -128);
  AddStage relu = stage(1.0f, 1.0f, 3);
  relu.act_min = 3;
  EXPECT_EQ(quantized_add(-10, 2, relu), 3);
}

TEST(QuantizedAdd, EachProductIsRoundedToFloat32BeforeTheSum) {
  // 0.1f is 0.100000001490116…: times 5 that is 0.50000000745 exactly, which float32 rounds to 0.5,
  // a tie that goes to even 0 (a double product would round up to 1).
  EXPECT_EQ(quantized_add(5, 0, stage(0.1f, 1.0f)), 0);
}

TEST(QuantizedAdd, AStageOutsideItsTypesIsNamed) {
  AddStage s;
  s.a_zero = 200;
  EXPECT_EQ(add_stage_error(s), "a_zero 200 is outside int8");
  s = AddStage{};
  s.b_scale = 0;
  EXPECT_EQ(add_stage_error(s), "b_scale must be a positive number of at most 2^24, got 0");
  s.b_scale = 3e38f;  // its products would overflow int64 on the way to a code
  EXPECT_EQ(add_stage_error(s), "b_scale must be a positive number of at most 2^24, got 3e+38");
  s = AddStage{};
  s.act_min = 10, s.act_max = 5;
  EXPECT_EQ(add_stage_error(s), "act_min 10 and act_max 5 must be an ordered range inside int8");
  EXPECT_EQ(add_stage_error(AddStage{}), "");
}

}  // namespace
}  // namespace treesim::numeric
