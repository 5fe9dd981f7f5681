// The files a GEMM's operands come from (qgemm's --a/--b, tgemm's --a): .npy matrices of codes or of
// floats quantized on load, the quantization file and the bias; errors name the file.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/float_operands.h"
#include "kernels/gemm/gemm.h"
#include "kernels/gemm/gemm_instance.h"
#include "kernels/kernel.h"
#include "sim/io/npy.h"
#include "sim/numeric/quant_file.h"

namespace treesim::kernels {

Result<io::NpyArray> read_npy(const std::string& path);
Result<numeric::QuantFile> read_quant(const std::string& path);

// An int8/uint8 matrix from .npy (or an f32/f16/bf16 one quantized on load to `float_dtype` with
// q's scales), its shape checked against what the other inputs say (`rows`, `cols`: 0 when none
// has yet; set from the file).
Result<std::vector<std::uint8_t>> read_operand(const std::string& path, core::DType& dtype,
                                               std::uint64_t& rows, std::uint64_t& cols,
                                               const char* rows_name, const char* cols_name, Operand which,
                                               core::DType float_dtype, numeric::QuantFile& q,
                                               const std::string& quant_path);

// An int32 bias of n values from .npy, as bytes.
Result<std::vector<std::uint8_t>> read_bias(const std::string& path, std::uint64_t n);

// A GEMM's operands from files: --a, the weights (--`w`, read by `read_w` into the kernel's own
// operands, which sets p.n and may check the quantization file), --quant and the optional --bias;
// the sizes given are checked against the files and the DRAM.
struct GemmFiles {
  QgemmProblem p;
  numeric::QuantFile q;
  std::vector<std::uint8_t> a, bias;
  std::optional<OutputArray::Dequantize> dequantize;
};
Result<GemmFiles> read_gemm_files(
    const Options& options, const std::string& w,
    const std::function<core::Errors(GemmFiles&, const std::string& quant_path)>& read_w,
    const machine::MachineConfig& machine);

// A kernel's problem from its files (or their first error): `make` builds the instance from them,
// which then writes C dequantized where --out-dtype asked for it.
template <typename Make>
Result<std::unique_ptr<Problem>> instance_from_files(Result<GemmFiles> files, Make make) {
  if (!files) return files.errors();
  std::unique_ptr<GemmInstance> instance = make(files.value());
  instance->dequantize_output(files->dequantize);
  return std::unique_ptr<Problem>(std::move(instance));
}

}  // namespace treesim::kernels
