// The fused output stage of a quantized layer (quant.md §5.1): int32 accumulator + int32 bias →
// MultiplyByQuantizedMultiplier (per tensor or per output channel) → + output zero point → clamp to
// the activation range → saturating cast to uint8/int8. The requant units compute exactly this.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/numeric/fixed_point.h"
#include "sim/numeric/quantize.h"

namespace treesim::numeric {

// Parameters of the output stage. `multipliers` has one entry (per tensor) or one per output
// channel; channel c uses multipliers[c] when per-channel, multipliers[0] otherwise.
struct OutputStage {
  // (n, value) rather than an initializer list: GCC 12 warns a list's array may be used uninitialized.
  std::vector<QuantizedMultiplier> multipliers =
      std::vector<QuantizedMultiplier>(1, QuantizedMultiplier{1 << 30, 1});  // 1.0
  std::int32_t out_zero_point = 0;
  DType out_dtype = DType::kInt8;
  std::int32_t act_min = -128;  // activation range in the quantized output domain (after + Z)
  std::int32_t act_max = 127;
  Rounding rounding = Rounding::kDouble;

  bool per_channel() const { return multipliers.size() > 1; }
  // Only a left shift can take an accumulator outside the fixed-point multiply's contract.
  bool shifts_left() const {
    for (const auto& m : multipliers)
      if (m.shift > 0) return true;
    return false;
  }
  const QuantizedMultiplier& multiplier_for(std::size_t channel) const {
    return multipliers[per_channel() ? channel : 0];
  }
};

// A quantization setting or value the reference arithmetic does not define.
class QuantError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Checks the stage on its own (channels = 0) or for a layer with `channels` output channels:
// multipliers not empty, and 1 or `channels` of them; out dtype uint8/int8; zero point and
// act_min <= act_max inside the out dtype; shifts in range for the rounding mode; single rounding
// without negative multipliers. Throws QuantError naming the first problem.
void validate(const OutputStage& stage, std::size_t channels = 0);

// The output stage for one accumulator (bias already added) of output channel `channel`. Fast path:
// @pre validate(stage) passed and the MBQM call is inside its contract.
inline std::int32_t requantize(std::int32_t acc, const OutputStage& stage, std::size_t channel) {
  const QuantizedMultiplier& m = stage.multiplier_for(channel);
  std::int64_t y = multiply_by_quantized_multiplier(acc, m.multiplier, m.shift, stage.rounding);
  y += stage.out_zero_point;
  y = y < stage.act_min ? stage.act_min : y;
  y = y > stage.act_max ? stage.act_max : y;
  return saturate(y, stage.out_dtype);
}

// The same, throwing QuantError when the reference would not define the result (for example a left
// shift of acc that overflows int32, or a single-rounding result outside int32).
std::int32_t requantize_checked(std::int32_t acc, const OutputStage& stage, std::size_t channel);

// An output stage prepared for blocks of `channels` channels: the per-channel constants of its
// arithmetic are worked out once for any number of blocks (a lock-step requant runs one block per
// PE). @pre validate(stage, channels) passed.
class RequantBlock {
 public:
  RequantBlock(const OutputStage& stage, std::size_t channels);
  // requantize_block and requantize_block_bytes (below) with this stage.
  void ints(const std::int32_t* acc, std::size_t rows, std::int32_t* out) const;
  void bytes(const std::uint8_t* acc, const std::uint8_t* bias, std::size_t rows, std::uint8_t* out) const;
  const OutputStage& stage() const { return stage_; }

 private:
  OutputStage stage_;
  std::size_t channels_ = 0, padded_ = 0;
  std::vector<std::int32_t> values_;  // double rounding: multipliers, left shifts, right shifts
};

// Requantizes a row-major rows×channels block of accumulators (channel = column) into `out`.
// @pre acc.size() == out.size() == rows·channels, validate(stage, channels) passed.
void requantize_block(const std::int32_t* acc, std::size_t rows, std::size_t channels,
                      const OutputStage& stage, std::int32_t* out);

// The same for accumulators as an LM holds them: little-endian int32 bytes at `acc`, plus `bias`
// (one int32 per channel as bytes, or null) added with wrap-around, and each result's low byte (its
// 8-bit code) written to `out`, in one pass. @pre out overlaps neither acc nor bias.
void requantize_block_bytes(const std::uint8_t* acc, const std::uint8_t* bias, std::size_t rows,
                            std::size_t channels, const OutputStage& stage, std::uint8_t* out);

}  // namespace treesim::numeric
