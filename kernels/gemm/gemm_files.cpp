#include "kernels/gemm/gemm_files.h"

#include <tuple>

#include <fmt/format.h>

#include "kernels/gemm/gemm_front.h"
#include "kernels/seeded_options.h"

namespace treesim::kernels {

Result<io::NpyArray> read_npy(const std::string& path) {
  try {
    return io::read_npy(path);
  } catch (const std::runtime_error& e) {
    return core::Error{"", e.what()};
  }
}

Result<numeric::QuantFile> read_quant(const std::string& path) {
  try {
    return numeric::load_quant_file(path);
  } catch (const std::runtime_error& e) {
    return core::Error{"", e.what()};
  }
}

Result<std::vector<std::uint8_t>> read_operand(const std::string& path, core::DType& dtype,
                                               std::uint64_t& rows, std::uint64_t& cols,
                                               const char* rows_name, const char* cols_name, Operand which,
                                               core::DType float_dtype, numeric::QuantFile& q,
                                               const std::string& quant_path) {
  Result<io::NpyArray> read = read_npy(path);
  if (!read) return read.errors();
  io::NpyArray& a = read.value();
  const bool is_float = is_float_operand(a.dtype);
  if (a.dtype != core::DType::kInt8 && a.dtype != core::DType::kUInt8 && !is_float)
    return core::Error{path, fmt::format("expected int8, uint8, float32, float16 or bfloat16 values, got {}",
                                         core::dtype_name(a.dtype))};
  if (a.shape.size() != 2)
    return core::Error{
        path, fmt::format("expected a matrix (2 dimensions), got shape {}", io::shape_string(a.shape))};
  if (a.shape[0] == 0 || a.shape[1] == 0)
    return core::Error{path, fmt::format("expected a matrix of at least one row and one column, got shape {}",
                                         io::shape_string(a.shape))};
  for (auto [want, got, name] : {std::tuple{&rows, a.shape[0], rows_name}, {&cols, a.shape[1], cols_name}}) {
    if (*want != 0 && *want != got)
      return core::Error{path, fmt::format("shape {} gives {} = {}, but {} = {} elsewhere",
                                           io::shape_string(a.shape), name, got, name, *want)};
    *want = got;
  }
  if (is_float) {
    dtype = float_dtype;
    return quantize_operand(a, path, which, float_dtype, q, quant_path);
  }
  dtype = a.dtype;
  return std::move(a.bytes);
}

Result<std::vector<std::uint8_t>> read_bias(const std::string& path, std::uint64_t n) {
  auto bias = read_npy(path);
  if (!bias) return bias.errors();
  if (bias->dtype != core::DType::kInt32 || bias->shape != std::vector<std::uint64_t>{n})
    return core::Error{path, fmt::format("expected int32 of shape ({},), got {} {}", n,
                                         core::dtype_name(bias->dtype), io::shape_string(bias->shape))};
  return std::move(bias->bytes);
}

Result<GemmFiles> read_gemm_files(const Options& o, const std::string& w,
                                  const std::function<core::Errors(GemmFiles&, const std::string&)>& read_w,
                                  const machine::MachineConfig& machine) {
  const std::string a_path = o.text("a"), w_path = o.text(w), quant = o.text("quant"),
                    bias_path = o.text("bias");
  if (a_path.empty() || w_path.empty() || quant.empty())
    return core::Error{"",
                       fmt::format("--a, --{} and --quant go together (and --bias optionally); or use --seed "
                                   "for random operands",
                                   w)};
  GemmFiles f;
  f.p.m = o.unsigned_int("m").value_or(0), f.p.n = o.unsigned_int("n").value_or(0);
  f.p.k = o.unsigned_int("k").value_or(0);
  Result<numeric::QuantFile> read_q = read_quant(quant);
  if (!read_q) return read_q.errors();
  f.q = std::move(read_q.value());
  auto a = read_operand(a_path, f.p.a_dtype, f.p.m, f.p.k, "M", "K", Operand::kA,
                        option_dtype(o.text("dtype-a")), f.q, quant);
  if (!a) return a.errors();
  f.a = std::move(a.value());
  if (core::Errors e = read_w(f, quant); !e.empty()) return e;
  if (core::Errors e = finish_scales(f.q, quant, f.p.n); !e.empty()) return e;
  if (f.q.out.multipliers.size() != 1 && f.q.out.multipliers.size() != f.p.n)
    return core::Error{quant, fmt::format("field 'multiplier': {} values, expected 1 (per tensor) or N = {} "
                                          "(one per output column)",
                                          f.q.out.multipliers.size(), f.p.n)};
  auto dequantize = output_dequantize(o, &f.q);
  if (!dequantize) return dequantize.errors();
  f.dequantize = dequantize.value();
  f.p.a_zero = f.q.a_zero_point, f.p.b_zero = f.q.b_zero_point;
  f.p.out = f.q.out;
  if (!bias_path.empty()) {
    auto bias = read_bias(bias_path, f.p.n);
    if (!bias) return bias.errors();
    f.p.has_bias = true;
    f.bias = std::move(bias.value());
  }
  core::Errors size = gemm_size_errors(f.p.m, f.p.n, f.p.k, f.p.has_bias, f.p.per_channel(), machine, true);
  for (auto& e : size)
    if (e.where == "--b") e.where = "--" + w;
  if (!size.empty()) return size;
  return f;
}

}  // namespace treesim::kernels
