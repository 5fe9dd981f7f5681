// Rounding::kFloat, ONNX Runtime's requant of QLinearMatMul / QLinearConv: fl32 multiplier, fl32
// product, nearbyint with ties to even, saturation.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "sim/numeric/fixed_point.h"
#include "sim/numeric/requant.h"

namespace treesim::numeric {
namespace {

std::int32_t float_mbqm(std::int32_t x, float m) {
  const QuantizedMultiplier q = float_multiplier(m);
  return multiply_by_quantized_multiplier(x, q.multiplier, q.shift, Rounding::kFloat);
}

TEST(FloatRounding, TiesGoToTheEvenNeighbour) {
  EXPECT_EQ(float_mbqm(5, 0.5f), 2);
  EXPECT_EQ(float_mbqm(7, 0.5f), 4);
  EXPECT_EQ(float_mbqm(-5, 0.5f), -2);
  EXPECT_EQ(float_mbqm(-7, 0.5f), -4);
  EXPECT_EQ(float_mbqm(3, 0.5f), 2);
}

TEST(FloatRounding, TheAccumulatorIsRoundedToFloat32First) {
  // 2^24 + 1 is not a float32: it becomes 2^24 before the multiply.
  EXPECT_EQ(float_mbqm(16777217, 1.0f), 16777216);
  EXPECT_EQ(float_mbqm(16777219, 1.0f), 16777220);
}

TEST(FloatRounding, ResultsOutsideInt32Saturate) {
  constexpr std::int32_t lo = std::numeric_limits<std::int32_t>::min();
  constexpr std::int32_t hi = std::numeric_limits<std::int32_t>::max();
  EXPECT_EQ(float_mbqm(hi, 4.0f), hi);
  EXPECT_EQ(float_mbqm(lo, 4.0f), lo);
  EXPECT_EQ(float_mbqm(lo, 1.0f), lo);
}

TEST(FloatRounding, TheMultiplierIsWorkedOutInFloat32AsOnnxRuntimeDoes) {
  // fl32(fl32(a·b)/c) differs from a double quotient rounded once (numpy, float32 vs float64).
  const float m = onnx_requant_scale(0.1f, 0.3f, 0.7f);
  EXPECT_EQ(float_multiplier(m).multiplier, 1026525945);
  EXPECT_EQ(float_multiplier(onnx_requant_scale(1.0f / 255, 0.0039f, 0.0235f)).multiplier, 975870811);
  EXPECT_EQ(quantize_multiplier(0.25, Rounding::kFloat), float_multiplier(0.25f));
}

TEST(FloatRounding, ContractRefusesAShiftOrANonFiniteMultiplier) {
  EXPECT_TRUE(mbqm_contract_violation(1, float_multiplier(0.5f).multiplier, 1, Rounding::kFloat));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(mbqm_contract_violation(1, float_multiplier(nan).multiplier, 0, Rounding::kFloat));
  EXPECT_FALSE(mbqm_contract_violation(1, float_multiplier(-0.5f).multiplier, 0, Rounding::kFloat));
}

TEST(FloatRounding, OutputStageAddsTheZeroPointThenClamps) {
  OutputStage s;
  s.rounding = Rounding::kFloat;
  s.multipliers = {float_multiplier(0.5f), float_multiplier(0.25f)};
  s.out_dtype = DType::kUInt8;
  s.out_zero_point = 10;
  s.act_min = 0;
  s.act_max = 255;
  validate(s, 2);
  EXPECT_EQ(requantize(5, s, 0), 12);    // 2.5 → 2, + 10
  EXPECT_EQ(requantize(10, s, 1), 12);   // 2.5 → 2, + 10
  EXPECT_EQ(requantize(-100, s, 0), 0);  // −50 + 10 clamps
  EXPECT_EQ(requantize(1000, s, 0), 255);
}

TEST(FloatRounding, BlocksRequantizeLikeOneValueAtATime) {
  OutputStage s;
  s.rounding = Rounding::kFloat;
  s.multipliers = {float_multiplier(0.37f), float_multiplier(0.011f), float_multiplier(1.5f)};
  const std::int32_t acc[6] = {-301, 4455, 77, 12, -99999, 85};
  std::int32_t out[6];
  requantize_block(acc, 2, 3, s, out);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(out[i], requantize(acc[i], s, i % 3)) << i;
}

TEST(FloatRounding, NameRoundTrips) {
  EXPECT_EQ(parse_rounding("float"), Rounding::kFloat);
  EXPECT_STREQ(to_string(Rounding::kFloat), "float");
}

}  // namespace
}  // namespace treesim::numeric
