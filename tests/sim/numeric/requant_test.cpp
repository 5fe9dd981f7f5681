#include "sim/numeric/requant.h"

#include <gtest/gtest.h>

namespace treesim::numeric {
namespace {

OutputStage stage(std::vector<QuantizedMultiplier> m, std::int32_t zp, DType t, std::int32_t lo,
                  std::int32_t hi) {
  OutputStage s;
  s.multipliers = std::move(m);
  s.out_zero_point = zp;
  s.out_dtype = t;
  s.act_min = lo;
  s.act_max = hi;
  return s;
}

TEST(Requant, AppliesMultiplierThenZeroPointThenClamp) {
  // 0.5 = 2^30 · 2^(0−31); 0.5·acc + 10, clamped to [0, 100].
  const OutputStage s = stage({{1 << 30, 0}}, 10, DType::kUInt8, 0, 100);
  EXPECT_EQ(requantize(40, s, 0), 30);
  EXPECT_EQ(requantize(-100, s, 0), 0);  // −50 + 10 → clamped at act_min
  EXPECT_EQ(requantize(400, s, 0), 100);
  EXPECT_EQ(requantize(3, s, 0), 12);  // 1.5 → 2 (SRDHM breaks ties upward), + 10
}

TEST(Requant, PerChannelUsesTheChannelsMultiplier) {
  const OutputStage s = stage({{1 << 30, 0}, {1 << 30, 1}, {1 << 30, -1}}, 0, DType::kInt8, -128, 127);
  EXPECT_EQ(requantize(40, s, 0), 20);
  EXPECT_EQ(requantize(40, s, 1), 40);
  EXPECT_EQ(requantize(40, s, 2), 10);
}

TEST(Requant, PerTensorUsesTheOneMultiplierForEveryChannel) {
  const OutputStage s = stage({{1 << 30, 0}}, 0, DType::kInt8, -128, 127);
  for (std::size_t c = 0; c < 5; ++c) EXPECT_EQ(requantize(40, s, c), 20);
}

TEST(Requant, BlockEqualsElementwise) {
  const OutputStage s = stage({{1518500250, -3}, {1 << 30, 2}}, -5, DType::kInt8, -100, 120);
  const std::vector<std::int32_t> acc = {0, 1, -1, 1000, -1000, 77, 3000, -3000};
  std::vector<std::int32_t> out(acc.size());
  requantize_block(acc.data(), 4, 2, s, out.data());
  for (std::size_t i = 0; i < acc.size(); ++i) EXPECT_EQ(out[i], requantize(acc[i], s, i % 2)) << i;
}

TEST(Requant, CheckedRejectsAccumulatorsOutsideTheContract) {
  const OutputStage s = stage({{1 << 30, 20}}, 0, DType::kInt8, -128, 127);
  EXPECT_EQ(requantize_checked(1, s, 0), 127);
  EXPECT_THROW(requantize_checked(1 << 12, s, 0), QuantError);
}

TEST(Requant, ValidateRejectsBadStages) {
  EXPECT_NO_THROW(validate(stage({{1 << 30, 0}}, 0, DType::kInt8, -128, 127)));
  EXPECT_THROW(validate(stage({}, 0, DType::kInt8, -128, 127)), QuantError);
  EXPECT_THROW(validate(stage({{1, 0}, {1, 0}}, 0, DType::kInt8, -128, 127), 3), QuantError);
  EXPECT_THROW(validate(stage({{1, 0}}, 128, DType::kInt8, -128, 127)), QuantError);
  EXPECT_THROW(validate(stage({{1, 0}}, 0, DType::kUInt8, 10, 5)), QuantError);
  EXPECT_THROW(validate(stage({{1, 0}}, 0, DType::kUInt8, -1, 5)), QuantError);
  EXPECT_THROW(validate(stage({{1, 0}}, 0, DType::kInt32, -128, 127)), QuantError);
  EXPECT_THROW(validate(stage({{1, -32}}, 0, DType::kInt8, -128, 127)), QuantError);
  OutputStage single = stage({{-5, 0}}, 0, DType::kInt8, -128, 127);
  single.rounding = Rounding::kSingle;
  EXPECT_THROW(validate(single), QuantError);
}

}  // namespace
}  // namespace treesim::numeric
