#include "sim/numeric/requant.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include <fmt/format.h>

namespace treesim::numeric {

void validate(const OutputStage& stage, std::size_t channels) {
  const std::size_t n = stage.multipliers.size();
  if (n == 0) throw QuantError("output stage has no multiplier");
  if (channels > 0 && n != 1 && n != channels)
    throw QuantError(
        fmt::format("{} multipliers for {} output channels (expected 1 or {})", n, channels, channels));
  if (stage.out_dtype == DType::kInt32)
    throw QuantError("out_dtype must be uint8 or int8 (int32 outputs need no output stage)");
  const DType t = stage.out_dtype;
  if (!in_range(stage.out_zero_point, t))
    throw QuantError(fmt::format("out_zero_point {} is outside {} [{}, {}]", stage.out_zero_point,
                                 core::dtype_name(t), dtype_min(t), dtype_max(t)));
  if (!in_range(stage.act_min, t) || !in_range(stage.act_max, t) || stage.act_min > stage.act_max)
    throw QuantError(fmt::format("activation range [{}, {}] is not a non-empty range inside {} [{}, {}]",
                                 stage.act_min, stage.act_max, core::dtype_name(t), dtype_min(t),
                                 dtype_max(t)));
  for (std::size_t c = 0; c < n; ++c) {
    const QuantizedMultiplier& m = stage.multipliers[c];
    // A zero accumulator is always inside the left-shift contract, so this checks q and shift alone.
    if (auto why = mbqm_contract_violation(0, m.multiplier, m.shift, stage.rounding))
      throw QuantError(fmt::format("multiplier[{}] = ({}, shift {}): {}", c, m.multiplier, m.shift, *why));
  }
}

std::int32_t requantize_checked(std::int32_t acc, const OutputStage& stage, std::size_t channel) {
  const QuantizedMultiplier& m = stage.multiplier_for(channel);
  if (auto why = mbqm_contract_violation(acc, m.multiplier, m.shift, stage.rounding))
    throw QuantError(
        fmt::format("requantizing accumulator {} of channel {} with ({}, shift {}), {} rounding: {}", acc,
                    channel, m.multiplier, m.shift, to_string(stage.rounding), *why));
  return requantize(acc, stage, channel);
}

namespace {

// The per-channel parameters of double rounding, spelled out for a branch-free loop: multipliers,
// left shifts and right shifts, `channels` each, in one allocation.
struct DoubleRounding {
  std::size_t channels = 0;
  std::vector<std::int32_t> values;
};

// requantize() with Rounding::kDouble over a block, written without calls or branches so that it
// vectorizes (the same arithmetic as multiply_by_quantized_multiplier, step by step).
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default"))) void requantize_double(
    const std::int32_t* acc, std::size_t rows, std::size_t channels, const DoubleRounding& p,
    std::int32_t zero, std::int32_t lo, std::int32_t hi, std::int32_t* out) {
  const std::int32_t* mult = p.values.data();
  const std::int32_t* left = mult + p.channels;
  const std::int32_t* right = left + p.channels;
  for (std::size_t r = 0; r < rows; ++r) {
    const std::int32_t* in = acc + r * channels;
    std::int32_t* o = out + r * channels;
    for (std::size_t c = 0; c < channels; ++c) {
      // x · 2^left, wrapped (inside the contract it fits), then SaturatingRoundingDoublingHighMul.
      const auto a = static_cast<std::int32_t>(static_cast<std::uint32_t>(in[c]) << left[c]);
      const std::int64_t ab = static_cast<std::int64_t>(a) * mult[c];
      const std::int64_t nudge = ab >= 0 ? (std::int64_t{1} << 30) : 1 - (std::int64_t{1} << 30);
      const std::int64_t sum = ab + nudge;
      // Division by 2^31 truncating toward zero.
      auto high = static_cast<std::int32_t>((sum + (sum < 0 ? (std::int64_t{1} << 31) - 1 : 0)) >> 31);
      high = (a == INT32_MIN && mult[c] == INT32_MIN) ? INT32_MAX : high;
      // RoundingDivideByPOT.
      const std::int32_t mask = static_cast<std::int32_t>((std::uint32_t{1} << right[c]) - 1u);
      const std::int32_t threshold = (mask >> 1) + (high < 0 ? 1 : 0);
      const std::int32_t q = (high >> right[c]) + ((high & mask) > threshold ? 1 : 0);
      std::int64_t y = static_cast<std::int64_t>(q) + zero;
      y = y < lo ? lo : y;
      y = y > hi ? hi : y;
      o[c] = static_cast<std::int32_t>(y);
    }
  }
}

}  // namespace

void requantize_block(const std::int32_t* acc, std::size_t rows, std::size_t channels,
                      const OutputStage& stage, std::int32_t* out) {
  if (stage.rounding == Rounding::kDouble) {
    // validate() keeps the activation range inside the output type, so clamping to it saturates.
    DoubleRounding p{channels, std::vector<std::int32_t>(3 * channels)};
    for (std::size_t c = 0; c < channels; ++c) {
      const QuantizedMultiplier& m = stage.multiplier_for(c);
      p.values[c] = m.multiplier;
      p.values[channels + c] = std::clamp(m.shift, 0, 31);
      p.values[2 * channels + c] = std::clamp(-m.shift, 0, 31);
    }
    const std::int32_t lo = std::max<std::int32_t>(stage.act_min, dtype_min(stage.out_dtype));
    const std::int32_t hi = std::min<std::int32_t>(stage.act_max, dtype_max(stage.out_dtype));
    return requantize_double(acc, rows, channels, p, stage.out_zero_point, lo, hi, out);
  }
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < channels; ++c)
      out[r * channels + c] = requantize(acc[r * channels + c], stage, c);
}

}  // namespace treesim::numeric
