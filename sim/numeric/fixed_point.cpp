#include "sim/numeric/fixed_point.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

namespace treesim::numeric {
namespace {

constexpr std::int32_t kInt32Min = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t kInt32Max = std::numeric_limits<std::int32_t>::max();

// The low 32 bits as a two's-complement int32: the hardware's wrap, without signed-overflow UB.
std::int32_t wrap32(std::int64_t v) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(v)));
}

bool fits32(std::int64_t v) { return v >= kInt32Min && v <= kInt32Max; }

// x · 2^left exactly, for 0 <= left <= 31 (|x| < 2^31, so the product fits in 63 bits).
std::int64_t times_pow2(std::int32_t x, int left) {
  return static_cast<std::int64_t>(x) * (std::int64_t{1} << left);
}

// Single rounding, exactly: (x·q + 2^(30−shift)) >> (31−shift) for −31 <= shift <= 30.
std::int64_t single_rounding_exact(std::int32_t x, std::int32_t q, int shift) {
  int total = 31 - shift;
  std::int64_t round = std::int64_t{1} << (total - 1);
  return (static_cast<std::int64_t>(x) * q + round) >> total;
}

}  // namespace

const char* to_string(Rounding r) {
  switch (r) {
    case Rounding::kDouble:
      return "double";
    case Rounding::kSingle:
      return "single";
    case Rounding::kDoubleUpward:
      return "double_upward";
    case Rounding::kFloat:
      return "float";
  }
  return "?";
}

std::optional<Rounding> parse_rounding(const std::string& text) {
  for (Rounding r : {Rounding::kDouble, Rounding::kSingle, Rounding::kDoubleUpward, Rounding::kFloat})
    if (text == to_string(r)) return r;
  return std::nullopt;
}

std::int32_t saturating_rounding_doubling_high_mul(std::int32_t a, std::int32_t b) {
  // (−1)·(−1) = +1 is the one product that does not fit Q0.31.
  if (a == kInt32Min && b == kInt32Min) return kInt32Max;
  std::int64_t ab = static_cast<std::int64_t>(a) * b;
  // C division truncates toward zero; the negative-side nudge makes it act as floor(ab/2^31 + 1/2).
  std::int64_t nudge = ab >= 0 ? (std::int64_t{1} << 30) : 1 - (std::int64_t{1} << 30);
  return static_cast<std::int32_t>((ab + nudge) / (std::int64_t{1} << 31));
}

std::int32_t rounding_divide_by_pot(std::int32_t x, int exponent) {
  const std::int32_t mask = static_cast<std::int32_t>((std::int64_t{1} << exponent) - 1);
  const std::int32_t remainder = x & mask;
  // One higher for negatives, so exact halves round away from zero on both sides.
  const std::int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

std::int32_t rounding_right_shift_up(std::int32_t x, int exponent) {
  if (exponent == 0) return x;
  return static_cast<std::int32_t>((static_cast<std::int64_t>(x) + (std::int64_t{1} << (exponent - 1))) >>
                                   exponent);
}

std::int32_t saturating_rounding_multiply_by_pot(std::int32_t x, int exponent) {
  if (exponent <= 0) return rounding_divide_by_pot(x, -exponent);
  const std::int32_t threshold = static_cast<std::int32_t>((std::int64_t{1} << (31 - exponent)) - 1);
  if (x > threshold) return kInt32Max;
  if (x < -threshold) return kInt32Min;
  return static_cast<std::int32_t>(times_pow2(x, exponent));
}

QuantizedMultiplier float_multiplier(float m) {
  std::int32_t bits;
  std::memcpy(&bits, &m, 4);
  return {bits, 0};
}

float float_of(const QuantizedMultiplier& m) {
  float f;
  std::memcpy(&f, &m.multiplier, 4);
  return f;
}

float onnx_requant_scale(float a_scale, float b_scale, float out_scale) {
  // volatile: each product is rounded to float32 even where the compiler could keep more precision.
  volatile float product = a_scale * b_scale;
  volatile float m = product / out_scale;
  return m;
}

QuantizedMultiplier quantize_multiplier(double real_multiplier, Rounding rounding) {
  if (!std::isfinite(real_multiplier))
    throw std::invalid_argument(fmt::format("real multiplier must be finite, got {}", real_multiplier));
  if (rounding == Rounding::kFloat) return float_multiplier(static_cast<float>(real_multiplier));
  if (real_multiplier == 0.0) return {0, 0};
  int shift = 0;
  const double fraction = std::frexp(real_multiplier, &shift);  // |fraction| in [0.5, 1)
  // std::round breaks ties away from zero, as TfLiteRound does; ·2^31 is exact.
  std::int64_t q = static_cast<std::int64_t>(std::round(fraction * 2147483648.0));
  if (q == (std::int64_t{1} << 31)) {  // rounded up to 1.0 (only checked on the positive side)
    q /= 2;
    ++shift;
  }
  if (shift < -31) return {0, 0};  // below about 2^-32: flushed to zero
  if (rounding == Rounding::kSingle && shift > 30) return {kInt32Max, 30};
  return {static_cast<std::int32_t>(q), shift};
}

std::int32_t multiply_by_quantized_multiplier(std::int32_t x, std::int32_t multiplier, int shift,
                                              Rounding rounding) {
  if (rounding == Rounding::kFloat) {
    // float(x) rounds |x| > 2^24 to float32, as ONNX Runtime's requant does; nearbyint ties to even in
    // the default rounding mode.
    const float y = std::nearbyint(static_cast<float>(x) * float_of({multiplier, shift}));
    if (std::isnan(y)) return 0;  // only from a multiplier that validate refuses
    if (y >= 2147483648.0f) return kInt32Max;
    if (y <= -2147483648.0f) return kInt32Min;
    return static_cast<std::int32_t>(y);
  }
  if (rounding == Rounding::kSingle) {
    return wrap32(single_rounding_exact(x, multiplier, std::clamp(shift, -31, 30)));
  }
  const int left = std::clamp(shift, 0, 31);
  const int right = std::clamp(-shift, 0, 31);
  const std::int32_t high = saturating_rounding_doubling_high_mul(wrap32(times_pow2(x, left)), multiplier);
  return rounding == Rounding::kDouble ? rounding_divide_by_pot(high, right)
                                       : rounding_right_shift_up(high, right);
}

std::optional<std::string> mbqm_contract_violation(std::int32_t x, std::int32_t multiplier, int shift,
                                                   Rounding rounding) {
  if (rounding == Rounding::kFloat) {
    if (shift != 0) return fmt::format("float rounding takes shift 0, got {}", shift);
    const float m = float_of({multiplier, shift});
    if (!std::isfinite(m)) return fmt::format("float rounding needs a finite float32 multiplier, got {}", m);
    return std::nullopt;
  }
  if (rounding == Rounding::kSingle) {
    if (multiplier < 0) return std::string("single rounding requires a non-negative multiplier");
    if (shift < -31 || shift > 30)
      return fmt::format("single rounding requires a shift in [-31, 30], got {}", shift);
    std::int64_t exact = single_rounding_exact(x, multiplier, shift);
    if (!fits32(exact)) return fmt::format("result={} does not fit int32", exact);
    return std::nullopt;
  }
  if (shift < -31) return fmt::format("right shift {} is more than 31", -shift);
  // Refused whatever x is, so that a stage checked with x = 0 (numeric::validate) never holds one.
  if (shift > 31)
    return fmt::format("left shift {} is more than 31 (it overflows int32 for every x but 0)", shift);
  if (shift > 0 && x != 0 && !fits32(times_pow2(x, shift)))
    return std::string("x * 2^left_shift overflows int32");
  return std::nullopt;
}

std::int32_t multiply_by_quantized_multiplier_int64(std::int64_t x, std::int32_t multiplier, int shift) {
  // The multiplier rounded to 15 bits; values that would round to 2^15 keep 0x7FFF.
  const std::int64_t reduced =
      multiplier < 0x7FFF0000 ? (static_cast<std::int64_t>(multiplier) + (1 << 15)) >> 16 : 0x7FFF;
  const int total = 15 - std::clamp(shift, -31, 7);
  const __int128 product = static_cast<__int128>(x) * reduced + (static_cast<__int128>(1) << (total - 1));
  const __int128 result = product >> total;
  if (result > kInt32Max) return kInt32Max;
  if (result < kInt32Min) return kInt32Min;
  return static_cast<std::int32_t>(result);
}

}  // namespace treesim::numeric
