#include "kernels/float_operands.h"

#include <fmt/format.h>

#include "sim/numeric/float_quant.h"

namespace treesim::kernels {
namespace {

core::Error no_scales(const std::string& quant_path, const io::NpyArray& a, const std::string& path) {
  return {quant_path, fmt::format("{} is {}, quantized on load: give out_scale (with a_scale and b_scale, or "
                                  "without them to calibrate from the data), not multiplier and shift",
                                  path, core::dtype_name(a.dtype))};
}

}  // namespace

bool is_float_operand(core::DType t) {
  return t == core::DType::kFloat32 || t == core::DType::kFloat16 || t == core::DType::kBFloat16;
}

Result<std::vector<float>> finite_values(const io::NpyArray& a, const std::string& path) {
  std::vector<float> values = io::npy_floats(a, path);
  if (const auto i = numeric::first_non_finite(values)) {
    const std::uint64_t cols = a.shape.size() == 2 ? a.shape[1] : 1;
    return core::Error{path, fmt::format("element [{}, {}] (index {}) is {}: expected a finite number",
                                         *i / cols, *i % cols, *i, values[*i])};
  }
  return values;
}

Result<std::vector<std::uint8_t>> quantize_operand(const io::NpyArray& a, const std::string& path,
                                                   Operand which, core::DType dtype, numeric::QuantFile& q,
                                                   const std::string& quant_path) {
  if (!q.scales) return no_scales(quant_path, a, path);
  Result<std::vector<float>> values = finite_values(a, path);
  if (!values) return values.errors();
  const std::uint64_t cols = a.shape[1];
  const std::int32_t zero = which == Operand::kA ? q.a_zero_point : q.b_zero_point;
  if (!numeric::in_range(zero, dtype))
    return core::Error{quant_path,
                       fmt::format("field '{}_zero_point': {} is outside {}, the type {} is quantized to",
                                   which == Operand::kA ? "a" : "b", zero, core::dtype_name(dtype), path)};
  std::vector<float> scales;
  if (which == Operand::kA) {
    if (!q.scales->a)
      q.scales->a =
          numeric::calibrate_minmax(values.value(), cols, numeric::ScaleMask::kPerTensor, zero, dtype)[0];
    scales = {*q.scales->a};
  } else {
    if (q.scales->b.empty())
      q.scales->b = numeric::calibrate_minmax(
          values.value(), cols,
          q.scales->b_mask == 2 ? numeric::ScaleMask::kPerColumn : numeric::ScaleMask::kPerTensor, zero,
          dtype);
    if (q.scales->b.size() != 1 && q.scales->b.size() != cols)
      return core::Error{quant_path,
                         fmt::format("field 'b_scale': {} values, expected 1 or {} (one per column of {})",
                                     q.scales->b.size(), cols, path)};
    scales = q.scales->b;
  }
  for (float s : scales)
    if (!(s > 0))
      return core::Error{quant_path, fmt::format("field '{}_scale': must be > 0 to quantize {}",
                                                 which == Operand::kA ? "a" : "b", path)};
  const std::vector<std::int32_t> codes = numeric::quantize_matrix(values.value(), cols, scales, zero, dtype);
  return std::vector<std::uint8_t>(codes.begin(), codes.end());
}

Result<std::vector<std::int8_t>> ternarize_operand(const io::NpyArray& w, const std::string& path,
                                                   numeric::QuantFile& q, const std::string& quant_path) {
  if (!q.scales) return no_scales(quant_path, w, path);
  Result<std::vector<float>> values = finite_values(w, path);
  if (!values) return values.errors();
  const std::uint64_t cols = w.shape[1];
  if (q.scales->b.empty())
    q.scales->b = numeric::calibrate_absmean(
        values.value(), cols,
        q.scales->b_mask == 2 ? numeric::ScaleMask::kPerColumn : numeric::ScaleMask::kPerTensor);
  if (q.scales->b.size() != 1 && q.scales->b.size() != cols)
    return core::Error{quant_path,
                       fmt::format("field 'b_scale': {} values, expected 1 or {} (one per column of {})",
                                   q.scales->b.size(), cols, path)};
  for (float s : q.scales->b)
    if (!(s > 0))
      return core::Error{quant_path, fmt::format("field 'b_scale': must be > 0 to ternarize {}", path)};
  return numeric::ternarize(values.value(), cols, q.scales->b);
}

core::Errors finish_scales(numeric::QuantFile& q, const std::string& quant_path, std::uint64_t n) {
  if (q.scales && q.scales->b_mask == 2 && !q.scales->b.empty() && q.scales->b.size() != n)
    return {{quant_path,
             fmt::format("field 'b_scale': {} values, expected {} (b_scale_mask 2: one per output column)",
                         q.scales->b.size(), n)}};
  if (!q.scales || !q.out.multipliers.empty()) return {};
  if (!q.scales->a)
    return {{quant_path, "field 'a_scale': missing (only a float operand is calibrated on load)"}};
  if (q.scales->b.empty())
    return {{quant_path, "field 'b_scale': missing (only a float operand is calibrated on load)"}};
  try {
    numeric::derive_multipliers(q, [&](std::size_t c, const std::string& message) {
      throw numeric::QuantFileError(fmt::format("{}: calibrated scales{}: {}", quant_path,
                                                q.scales->b.size() > 1 ? fmt::format(" (column {})", c) : "",
                                                message));
    });
  } catch (const numeric::QuantFileError& e) {
    return {{"", e.what()}};
  }
  return {};
}

OptionSpec out_dtype_option() {
  return {"out-dtype",
          OptionKind::kChoice,
          "f32: write C dequantized, out_scale·(C − out_zero_point) (needs --quant with out_scale)",
          std::nullopt,
          {"f32"},
          {},
          {}};
}

Result<std::optional<OutputArray::Dequantize>> output_dequantize(const Options& o,
                                                                 const numeric::QuantFile* q) {
  if (o.text("out-dtype").empty()) return std::optional<OutputArray::Dequantize>{};
  if (!q || !q->scales)
    return core::Error{"--out-dtype", "f32 dequantizes C with out_scale: give --quant with out_scale"};
  return std::optional<OutputArray::Dequantize>{
      OutputArray::Dequantize{q->scales->out, q->out.out_zero_point}};
}

}  // namespace treesim::kernels
