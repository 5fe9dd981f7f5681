// Quantization files (YAML): the zero points, output type, activation range, rounding and
// multipliers of one quantized layer, shared by `treesim quant gemm` and every quantized kernel.
//
//   a_zero_point: 111          # default 0; A's code for real 0 (uint8 or int8 range)
//   b_zero_point: 139          # default 0
//   out_zero_point: 205        # default 0; inside out_dtype
//   out_dtype: uint8           # uint8 | int8, default int8
//   act_min: 0                 # default: out_dtype's minimum (no activation)
//   act_max: 255               # default: out_dtype's maximum
//   rounding: double           # double | single | double_upward, default double (TFLite reference)
//   multiplier: 1370855315     # int32, one (per tensor) or a list of N (per output column) ...
//   shift: -7                  # ... with as many shifts (TFLite sign: > 0 shifts left), or
//   a_scale: 0.0467            # instead of multiplier/shift: the real scales, from which
//   b_scale: [0.0219, 0.0131]  # multiplier[c] = a_scale·b_scale[c]/out_scale is derived
//   out_scale: 0.205           # with QuantizeMultiplier (b_scale: one or N values)
//   scale_product: double      # double | float32: how a_scale·b_scale is formed (see below)
//   b_scale_mask: 2            # oneDNN's mask for K×N weights: 0 per tensor, 2 per output column
//
// With out_scale given, a_scale and b_scale may be left out: a float operand (.npy f32/f16/bf16) is
// then calibrated on load from its min/max (sim/numeric/float_quant.h; B per column when
// b_scale_mask is 2) and the multipliers are derived after that (derive_multipliers).
//
// Scales are f32 (as TFLite stores them): each is rounded to f32 first. With scale_product double
// (the TFLite int8 path) m = (double)a·(double)b/(double)out; with float32 (the legacy uint8 path)
// the product a·b is rounded to f32 first. The default is float32 for out_dtype uint8 and double
// for int8, as TFLite does.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/numeric/requant.h"

namespace treesim::numeric {

struct QuantFile {
  std::int32_t a_zero_point = 0;
  std::int32_t b_zero_point = 0;
  OutputStage out;  // multipliers given, or derived from the scales below

  struct Scales {
    std::optional<float> a;  // none: calibrated from a float A
    std::vector<float> b;    // one or N; empty: calibrated from a float B
    float out = 1.0f;
    bool float32_product = false;
    std::optional<int> b_mask;  // 0 or 2 when given

    bool complete() const { return a.has_value() && !b.empty(); }
  };
  std::optional<Scales> scales;  // set when the file gave scales instead of multipliers
};

// The real multipliers a·b[c]/out of `scales`, formed as the file's scale_product says.
std::vector<double> real_multipliers(const QuantFile::Scales& scales);

// Sets q.out.multipliers from q.scales (complete) with QuantizeMultiplier; `fail(channel, message)`
// is called (and must throw) for a multiplier that is not finite or needs too large a left shift.
void derive_multipliers(QuantFile& q, const std::function<void(std::size_t, const std::string&)>& fail);

// A quantization file that cannot be used. what() is the one-line message
// `FILE:LINE:COL: field 'shift[1]': expected an integer in [-31, 31], got '40'` (1-based).
class QuantFileError : public std::runtime_error {
 public:
  QuantFileError(const std::string& file, int line, int column, const std::string& message);
  explicit QuantFileError(const std::string& message) : std::runtime_error(message) {}
};

// Parses YAML text; `file` is used in error messages only.
QuantFile parse_quant_yaml(const std::string& text, const std::string& file);

// Reads a quantization file.
QuantFile load_quant_file(const std::string& path);

}  // namespace treesim::numeric
