// The integer-only requantization arithmetic of gemmlowp / TFLite, bit for bit (see
// the design notes, quant §2-4). Every function is total and free of undefined behaviour: inputs
// outside the reference's contract get a defined result here, and mbqm_contract_violation() says
// when the reference itself would not define one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace treesim::numeric {

// How MultiplyByQuantizedMultiplier rounds (quant.md §4).
enum class Rounding {
  kDouble,        // TFLite reference / TFLM default: SRDHM (ties up), then RDBPOT (ties away from 0)
  kSingle,        // TFLITE_SINGLE_ROUNDING=1 and ruy: one rounding of the exact product, ties up
  kDoubleUpward,  // NEON SQRDMULH + SRSHL: SRDHM, then a ties-up right shift
  // ONNX Runtime's QLinearMatMul / QLinearConv: the multiplier word holds a float32 m (shift 0), and
  // MBQM is nearbyint(fl32(x) · m) with ties to even, saturated to int32.
  kFloat,
};

// "double", "single", "double_upward", "float"; parse_rounding returns nullopt for any other text.
const char* to_string(Rounding r);
std::optional<Rounding> parse_rounding(const std::string& text);

// SaturatingRoundingDoublingHighMul: round(a·b / 2^31), ties toward +inf; INT32_MIN² → INT32_MAX.
std::int32_t saturating_rounding_doubling_high_mul(std::int32_t a, std::int32_t b);

// RoundingDivideByPOT: round(x / 2^exponent), ties away from zero. @pre 0 <= exponent <= 31.
std::int32_t rounding_divide_by_pot(std::int32_t x, int exponent);

// (x + 2^(exponent-1)) >> exponent computed exactly: ties toward +inf. @pre 0 <= exponent <= 31.
std::int32_t rounding_right_shift_up(std::int32_t x, int exponent);

// SaturatingRoundingMultiplyByPOT: exponent < 0 is rounding_divide_by_pot(x, -exponent); exponent > 0
// is a left shift saturating to the int32 range. @pre -31 <= exponent <= 31.
std::int32_t saturating_rounding_multiply_by_pot(std::int32_t x, int exponent);

// A real multiplier m ≈ multiplier · 2^(shift − 31); shift > 0 shifts left.
struct QuantizedMultiplier {
  std::int32_t multiplier = 0;
  int shift = 0;
  bool operator==(const QuantizedMultiplier& o) const {
    return multiplier == o.multiplier && shift == o.shift;
  }
};

// Rounding::kFloat's multiplier: a float32 as the int32 word that holds its bits, shift 0.
QuantizedMultiplier float_multiplier(float m);
float float_of(const QuantizedMultiplier& m);
// ONNX Runtime's requant scale: fl32(fl32(a_scale · b_scale) / out_scale).
float onnx_requant_scale(float a_scale, float b_scale, float out_scale);

// TFLite QuantizeMultiplier for any finite m (below one, above one, negative): frexp, round half
// away from zero, 2^31 → (2^30, shift+1), shift < −31 → (0, 0). With Rounding::kSingle the
// single-rounding build's saturation also applies: shift > 30 → (INT32_MAX, 30). With Rounding::kFloat
// it is float_multiplier(fl32(m)).
QuantizedMultiplier quantize_multiplier(double real_multiplier, Rounding rounding = Rounding::kDouble);

// MultiplyByQuantizedMultiplier(int32 x, q, shift) in the chosen flavour. Inside the contract
// (mbqm_contract_violation returns nullopt) the result equals the reference's; outside it the result
// is defined but meaningless.
std::int32_t multiply_by_quantized_multiplier(std::int32_t x, std::int32_t multiplier, int shift,
                                              Rounding rounding);

// Why the reference leaves MBQM(x, q, shift) undefined in this flavour (e.g. "x * 2^left_shift
// overflows int32"), or nullopt when the call is inside its contract.
std::optional<std::string> mbqm_contract_violation(std::int32_t x, std::int32_t multiplier, int shift,
                                                   Rounding rounding);

// TFLite's MultiplyByQuantizedMultiplier(int64 x, ...) for int64 accumulators, the same in both
// builds: the multiplier is first rounded to 15 bits. @pre −2^47 <= x < 2^47, −31 <= shift < 8;
// the result is saturated to int32 where the reference only asserts that it fits.
std::int32_t multiply_by_quantized_multiplier_int64(std::int64_t x, std::int32_t multiplier, int shift);

}  // namespace treesim::numeric
