#include "sim/numeric/requant.h"

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

void requantize_block(const std::int32_t* acc, std::size_t rows, std::size_t channels,
                      const OutputStage& stage, std::int32_t* out) {
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < channels; ++c)
      out[r * channels + c] = requantize(acc[r * channels + c], stage, c);
}

}  // namespace treesim::numeric
