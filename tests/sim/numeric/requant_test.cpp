#include "sim/numeric/requant.h"

#include <gtest/gtest.h>

#include <random>

#include <cstring>
#include <vector>

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

TEST(Requant, BlockEqualsElementwiseOverEdgeCasesAndChannelTails) {
  // 37 channels (a vector tail), every right shift, small left shifts, negative and extreme
  // multipliers, accumulators at INT32_MIN/MAX and at rounding ties; uint8 output with a zero
  // point near the top, so that y + Z would overflow int32 before the clamp.
  std::vector<QuantizedMultiplier> m;
  for (int c = 0; c < 37; ++c) {
    const std::int32_t mult = c == 0       ? INT32_MIN
                              : c == 1     ? INT32_MAX
                              : c % 3 == 0 ? -(1 << 30) - c
                                           : (1 << 30) + c * 9973;
    m.push_back({mult, c < 32 ? -c : c - 36});
  }
  const OutputStage s = stage(m, 250, DType::kUInt8, 3, 255);
  std::vector<std::int32_t> acc;
  for (std::int32_t v : {INT32_MIN, INT32_MAX, 0, 1, -1, 2, -2, 3, -3, 1 << 20, -(1 << 20), 12345, -54321})
    for (int c = 0; c < 37; ++c) acc.push_back(c % 2 || c == 0 ? v : v / 2 - c);
  std::vector<std::int32_t> out(acc.size());
  // Left shifts only where they keep the accumulator inside the multiply's contract.
  for (std::size_t i = 0; i < acc.size(); ++i)
    if (m[i % 37].shift > 0) acc[i] = acc[i] / 4;
  requantize_block(acc.data(), acc.size() / 37, 37, s, out.data());
  for (std::size_t i = 0; i < acc.size(); ++i) ASSERT_EQ(out[i], requantize(acc[i], s, i % 37)) << i;
}

// The LM form: int32 bytes in at an odd offset, the bias added with wrap-around, the codes' low
// bytes out; double rounding (vectorized) and single rounding (scalar), with and without a bias.
TEST(Requant, BytesBlockEqualsElementwiseWithBiasWrapping) {
  const std::size_t rows = 5, cols = 19;
  std::vector<QuantizedMultiplier> m;
  for (std::size_t c = 0; c < cols; ++c)
    m.push_back({(1 << 30) + static_cast<std::int32_t>(c) * 7919, -static_cast<int>(c % 9)});
  std::vector<std::int32_t> acc, bias;
  for (std::size_t i = 0; i < rows * cols; ++i)
    acc.push_back(static_cast<std::int32_t>(i * 2654435761u) >> (i % 13));
  for (std::size_t c = 0; c < cols; ++c)
    bias.push_back(c == 0 ? INT32_MAX : static_cast<std::int32_t>(c * 40503) - 300000);
  acc[0] = 1;  // 1 + INT32_MAX wraps to INT32_MIN
  std::vector<std::uint8_t> acc_bytes(1 + acc.size() * 4), bias_bytes(bias.size() * 4);
  std::memcpy(acc_bytes.data() + 1, acc.data(), acc.size() * 4);
  std::memcpy(bias_bytes.data(), bias.data(), bias.size() * 4);
  for (Rounding rounding : {Rounding::kDouble, Rounding::kSingle})
    for (bool with_bias : {false, true}) {
      OutputStage s = stage(m, -3, DType::kInt8, -120, 127);
      s.rounding = rounding;
      std::vector<std::uint8_t> out(acc.size());
      requantize_block_bytes(acc_bytes.data() + 1, with_bias ? bias_bytes.data() : nullptr, rows, cols, s,
                             out.data());
      for (std::size_t i = 0; i < acc.size(); ++i) {
        const std::uint32_t b = with_bias ? static_cast<std::uint32_t>(bias[i % cols]) : 0;
        const auto x = static_cast<std::int32_t>(static_cast<std::uint32_t>(acc[i]) + b);
        ASSERT_EQ(static_cast<std::int8_t>(out[i]), requantize(x, s, i % cols))
            << to_string(rounding) << (with_bias ? " with bias, " : ", ") << i;
      }
    }
}

TEST(Requant, BlocksOfEveryWidthMatchTheElementByElementStageOverRandomStages) {
  // The block loops (AVX2 where the CPU has it) against requantize() one accumulator at a time:
  // random multipliers (INT32_MIN and negative ones included), shifts, zero points, ranges, biases
  // and widths of 1 to 19 channels (whole vectors and tails), inside the multiply's contract.
  std::mt19937_64 gen(7);
  auto any = [&](std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(gen);
  };
  for (int round = 0; round < 400; ++round) {
    const std::size_t cols = static_cast<std::size_t>(any(1, 19)), rows = static_cast<std::size_t>(any(1, 5));
    const DType out = any(0, 1) ? DType::kInt8 : DType::kUInt8;
    std::vector<QuantizedMultiplier> m;
    const std::size_t multipliers = any(0, 1) ? cols : 1;
    for (std::size_t c = 0; c < multipliers; ++c) {
      const std::int64_t r = any(0, 9);
      const auto mult = static_cast<std::int32_t>(r == 0   ? INT32_MIN
                                                  : r == 1 ? INT32_MAX
                                                           : any(INT32_MIN, INT32_MAX));
      m.push_back({mult, static_cast<int>(any(-31, 4))});
    }
    const std::int32_t lo_type = out == DType::kInt8 ? -128 : 0, hi_type = out == DType::kInt8 ? 127 : 255;
    const auto zero = static_cast<std::int32_t>(any(lo_type, hi_type));
    const auto act_min = static_cast<std::int32_t>(any(lo_type, hi_type));
    const auto act_max = static_cast<std::int32_t>(any(act_min, hi_type));
    const OutputStage s = stage(m, zero, out, act_min, act_max);
    ASSERT_NO_THROW(validate(s, cols));
    const bool with_bias = any(0, 1) != 0;
    std::vector<std::int32_t> acc(rows * cols), bias(cols);
    for (std::size_t c = 0; c < cols; ++c)
      bias[c] = with_bias ? static_cast<std::int32_t>(any(-1000, 1000)) : 0;
    for (std::size_t i = 0; i < acc.size(); ++i) {
      // With a left shift the biased accumulator stays inside the contract: x · 2^shift fits int32.
      const int shift = s.multiplier_for(i % cols).shift;
      const std::int64_t limit = shift > 0 ? (std::int64_t{1} << (31 - shift)) - 1001 : INT32_MAX;
      const std::int64_t r = any(0, 19);
      // INT32_MIN after the bias, the one accumulator the doubling high multiply saturates.
      const auto min_after_bias = static_cast<std::int32_t>(static_cast<std::uint32_t>(INT32_MIN) -
                                                            static_cast<std::uint32_t>(bias[i % cols]));
      acc[i] = r == 0 && shift <= 0
                   ? min_after_bias
                   : static_cast<std::int32_t>(r == 1 ? limit - 1000 : any(-limit + 1000, limit - 1000));
    }
    std::vector<std::uint8_t> acc_bytes(acc.size() * 4), bias_bytes(cols * 4), got(acc.size());
    std::memcpy(acc_bytes.data(), acc.data(), acc_bytes.size());
    std::memcpy(bias_bytes.data(), bias.data(), bias_bytes.size());
    requantize_block_bytes(acc_bytes.data(), with_bias ? bias_bytes.data() : nullptr, rows, cols, s,
                           got.data());
    std::vector<std::int32_t> ints(acc.size());
    std::vector<std::int32_t> biased(acc.size());
    for (std::size_t i = 0; i < acc.size(); ++i)
      biased[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(acc[i]) +
                                            static_cast<std::uint32_t>(bias[i % cols]));
    requantize_block(biased.data(), rows, cols, s, ints.data());
    for (std::size_t i = 0; i < acc.size(); ++i) {
      const std::int32_t want = requantize(biased[i], s, i % cols);
      ASSERT_EQ(out == DType::kInt8 ? std::int32_t{static_cast<std::int8_t>(got[i])} : std::int32_t{got[i]},
                want)
          << "round " << round << ", element " << i << " of " << rows << "x" << cols;
      ASSERT_EQ(ints[i], want) << "round " << round << ", element " << i;
    }
  }
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
