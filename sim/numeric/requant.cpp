#include "sim/numeric/requant.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "sim/numeric/requant_avx2.h"

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
// left shifts and right shifts, `channels` each, in one allocation (RequantBlock holds them).
struct DoubleRounding {
  std::size_t channels = 0, stride = 0;  // stride: each array's length (channels, padded)
  const std::int32_t* values = nullptr;
  std::int32_t zero = 0, lo = 0, hi = 0;
  const std::int32_t* mult() const { return values; }
  const std::int32_t* left() const { return values + stride; }
  const std::int32_t* right() const { return values + 2 * stride; }
};

DoubleRounding double_rounding(const OutputStage& stage, std::size_t channels, std::size_t stride,
                               const std::int32_t* values) {
  // validate() keeps the activation range inside the output type, so clamping to it saturates.
  return {channels,
          stride,
          values,
          stage.out_zero_point,
          std::max<std::int32_t>(stage.act_min, dtype_min(stage.out_dtype)),
          std::min<std::int32_t>(stage.act_max, dtype_max(stage.out_dtype))};
}

// requantize() with Rounding::kDouble for one accumulator of channel c, without calls or branches so
// that the loops below vectorize (the same arithmetic as multiply_by_quantized_multiplier, step by
// step).
inline __attribute__((always_inline)) std::int32_t double_rounded(std::int32_t x, const DoubleRounding& p,
                                                                  std::size_t c) {
  const std::int32_t mult = p.mult()[c], left = p.left()[c], right = p.right()[c];
  // x · 2^left, wrapped (inside the contract it fits), then SaturatingRoundingDoublingHighMul.
  const auto a = static_cast<std::int32_t>(static_cast<std::uint32_t>(x) << left);
  const std::int64_t ab = static_cast<std::int64_t>(a) * mult;
  const std::int64_t nudge = ab >= 0 ? (std::int64_t{1} << 30) : 1 - (std::int64_t{1} << 30);
  const std::int64_t sum = ab + nudge;
  // Division by 2^31 truncating toward zero.
  auto high = static_cast<std::int32_t>((sum + (sum < 0 ? (std::int64_t{1} << 31) - 1 : 0)) >> 31);
  high = (a == INT32_MIN && mult == INT32_MIN) ? INT32_MAX : high;
  // RoundingDivideByPOT.
  const std::int32_t mask = static_cast<std::int32_t>((std::uint32_t{1} << right) - 1u);
  const std::int32_t threshold = (mask >> 1) + (high < 0 ? 1 : 0);
  const std::int32_t q = (high >> right) + ((high & mask) > threshold ? 1 : 0);
  std::int64_t y = static_cast<std::int64_t>(q) + p.zero;
  y = y < p.lo ? p.lo : y;
  y = y > p.hi ? p.hi : y;
  return static_cast<std::int32_t>(y);
}

__attribute__((target_clones("arch=x86-64-v4", "avx2", "default"))) void requantize_double(
    const std::int32_t* acc, std::size_t rows, const DoubleRounding& p, std::int32_t* out) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < p.channels; ++c)
      out[r * p.channels + c] = double_rounded(acc[r * p.channels + c], p, c);
}

// The LM's form: int32 bytes in, bias bytes (or none) added with wrap-around, the 8-bit codes out.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default"))) void requantize_double_bytes(
    const std::uint8_t* __restrict acc, const std::uint8_t* __restrict bias, std::size_t rows,
    const DoubleRounding& p, std::uint8_t* __restrict out) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < p.channels; ++c) {
      std::uint32_t x, b = 0;
      std::memcpy(&x, acc + 4 * (r * p.channels + c), 4);
      if (bias) std::memcpy(&b, bias + 4 * c, 4);
      const auto biased = static_cast<std::int32_t>(x + b);
      out[r * p.channels + c] = static_cast<std::uint8_t>(double_rounded(biased, p, c) & 0xff);
    }
}

}  // namespace

RequantBlock::RequantBlock(const OutputStage& stage, std::size_t channels)
    : stage_(stage), channels_(channels), padded_((channels + 7) / 8 * 8) {
  if (stage.rounding != Rounding::kDouble) return;
  // Each array padded to whole vectors of 8 channels for the AVX2 loop.
  values_.assign(3 * padded_, 0);
  for (std::size_t c = 0; c < channels; ++c) {
    const QuantizedMultiplier& m = stage.multiplier_for(c);
    values_[c] = m.multiplier;
    values_[padded_ + c] = std::clamp(m.shift, 0, 31);
    values_[2 * padded_ + c] = std::clamp(-m.shift, 0, 31);
  }
}

void RequantBlock::bytes(const std::uint8_t* acc, const std::uint8_t* bias, std::size_t rows,
                         std::uint8_t* out) const {
  if (stage_.rounding == Rounding::kDouble) {
    const DoubleRounding p = double_rounding(stage_, channels_, padded_, values_.data());
    static const bool avx2 = requant_avx2_available();
    if (avx2)
      return requantize_double_bytes_avx2(
          acc, bias, rows, {p.mult(), p.left(), p.right(), channels_, p.zero, p.lo, p.hi}, out);
    return requantize_double_bytes(acc, bias, rows, p, out);
  }
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < channels_; ++c) {
      std::uint32_t x, b = 0;
      std::memcpy(&x, acc + 4 * (r * channels_ + c), 4);
      if (bias) std::memcpy(&b, bias + 4 * c, 4);
      out[r * channels_ + c] =
          static_cast<std::uint8_t>(requantize(static_cast<std::int32_t>(x + b), stage_, c) & 0xff);
    }
}

void RequantBlock::ints(const std::int32_t* acc, std::size_t rows, std::int32_t* out) const {
  if (stage_.rounding == Rounding::kDouble)
    return requantize_double(acc, rows, double_rounding(stage_, channels_, padded_, values_.data()), out);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < channels_; ++c)
      out[r * channels_ + c] = requantize(acc[r * channels_ + c], stage_, c);
}

void requantize_block(const std::int32_t* acc, std::size_t rows, std::size_t channels,
                      const OutputStage& stage, std::int32_t* out) {
  RequantBlock(stage, channels).ints(acc, rows, out);
}

void requantize_block_bytes(const std::uint8_t* acc, const std::uint8_t* bias, std::size_t rows,
                            std::size_t channels, const OutputStage& stage, std::uint8_t* out) {
  RequantBlock(stage, channels).bytes(acc, bias, rows, out);
}

}  // namespace treesim::numeric
