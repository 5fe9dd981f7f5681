// Float operands of the quantized GEMM kernels (qgemm, tgemm): f32, f16 and bf16 .npy matrices
// quantized on load with the quantization file's scales, or with scales calibrated from the data
// (sim/numeric/float_quant.h), and the --out-dtype f32 option that dequantizes the output.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/kernel.h"
#include "sim/io/npy.h"
#include "sim/numeric/quant_file.h"

namespace treesim::kernels {

// f32, f16 or bf16.
bool is_float_operand(core::DType t);

// The values of a float .npy, every one finite; else an error naming the file and the element.
Result<std::vector<float>> finite_values(const io::NpyArray& a, const std::string& path);

// Which operand: A (M×K, one scale) or B/W (K×N, one scale or one per column).
enum class Operand { kA, kB };

// The codes of a float matrix `a` (read from `path`) quantized to `dtype` with q's scale(s) for
// `which` and its zero point; a scale the file leaves out is calibrated (min/max) and recorded in q.
Result<std::vector<std::uint8_t>> quantize_operand(const io::NpyArray& a, const std::string& path,
                                                   Operand which, core::DType dtype, numeric::QuantFile& q,
                                                   const std::string& quant_path);

// Ternary weights of a float K×N matrix: q's b_scale(s), or absmean scales (recorded in q).
Result<std::vector<std::int8_t>> ternarize_operand(const io::NpyArray& w, const std::string& path,
                                                   numeric::QuantFile& q, const std::string& quant_path);

// After the operands: q's multipliers derived from its scales when some were calibrated; an error
// when a scale is still missing (an integer operand is never calibrated) or b_scale_mask 2 comes
// with other than one b_scale per output column (n of them).
core::Errors finish_scales(numeric::QuantFile& q, const std::string& quant_path, std::uint64_t n);

// --out-dtype: "f32" writes the output dequantized.
OptionSpec out_dtype_option();

// The dequantization --out-dtype asks for (none when absent): out_scale and out_zero_point of q
// (null: the operands are not from files, so there is no out_scale).
Result<std::optional<OutputArray::Dequantize>> output_dequantize(const Options& o,
                                                                 const numeric::QuantFile* q);

}  // namespace treesim::kernels
