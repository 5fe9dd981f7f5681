// qgemm's options and its problem: random operands from --seed, or A, B, bias and the output
// stage from .npy and quantization files.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/float_operands.h"
#include "kernels/gemm/gemm_options.h"
#include "kernels/qgemm/qgemm_kernel.h"
#include "kernels/seeded_options.h"
#include "sim/core/mt19937_64.h"
#include "sim/io/npy.h"
#include "sim/numeric/quant_file.h"

namespace treesim::kernels {
namespace {

std::vector<OptionSpec> qgemm_options() {
  const auto plain = plain_option;
  std::vector<OptionSpec> options = gemm_size_options("B");
  append(
      options,
      {dtype_option("dtype-a", "A's type with --seed, or a float --a's quantized type: u8 or s8"),
       dtype_option("dtype-b", "B's type with --seed, or a float --b's quantized type: u8 or s8"),
       {"dtype-out",
        OptionKind::kChoice,
        "C's type with --seed: u8, s8, or s32 (the int32 accumulators: no bias, no requant)",
        OptionValue{std::string("s8")},
        {"u8", "s8", "s32", "uint8", "int8", "int32"},
        {},
        {}},
       zero_option("a-zero", "A's zero point with --seed (default 128 for u8, 0 for s8)"),
       zero_option("b-zero", "B's zero point with --seed (default 128 for u8, 0 for s8)"),
       zero_option("out-zero", "C's zero point with --seed (default 128 for u8, 0 for s8)"),
       plain("per-channel", OptionKind::kFlag, "With --seed: one requant multiplier per output column"),
       rounding_option(
           "With --seed: the requant arithmetic: double (TFLite reference), single, double_upward or float "
           "(ONNX Runtime's float32 scale); a --quant file gives its own"),
       plain("no-bias", OptionKind::kFlag, "With --seed: no bias"),
       act_option("With --seed: none, relu or relu6 (output scale 1/20)"),
       seed_option(),
       plain("a", OptionKind::kPath,
             "A as .npy (int8/uint8, M×K; float32/float16/bfloat16: quantized on load)"),
       plain("b", OptionKind::kPath,
             "B as .npy (int8/uint8, K×N; float32/float16/bfloat16: quantized on load)"),
       plain("bias", OptionKind::kPath, "bias as .npy (int32, N)"),
       plain("quant", OptionKind::kPath, "Quantization file (YAML) for --a/--b")});
  append(options, gemm_layout_options("B"));
  append(options, {out_dtype_option()});
  return options;
}

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

// An int8/uint8 matrix from .npy (or an f32/f16/bf16 one quantized on load to `float_dtype` with
// q's scales), its shape checked against what the other inputs say.
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

Result<std::unique_ptr<Problem>> from_files(const Options& o, const machine::MachineConfig& machine) {
  const std::string a_path = o.text("a"), b_path = o.text("b"), quant = o.text("quant"),
                    bias_path = o.text("bias");
  if (a_path.empty() || b_path.empty() || quant.empty())
    return core::Error{
        "", "--a, --b and --quant go together (and --bias optionally); or use --seed for random operands"};
  QgemmProblem p;
  p.m = o.unsigned_int("m").value_or(0), p.n = o.unsigned_int("n").value_or(0);
  p.k = o.unsigned_int("k").value_or(0);
  Result<numeric::QuantFile> read_q = read_quant(quant);
  if (!read_q) return read_q.errors();
  numeric::QuantFile& q = read_q.value();
  QgemmOperands ops;
  auto a = read_operand(a_path, p.a_dtype, p.m, p.k, "M", "K", Operand::kA, option_dtype(o.text("dtype-a")),
                        q, quant);
  if (!a) return a.errors();
  ops.a = std::move(a.value());
  std::uint64_t k2 = p.k;
  auto b = read_operand(b_path, p.b_dtype, k2, p.n, "K", "N", Operand::kB, option_dtype(o.text("dtype-b")), q,
                        quant);
  if (!b) return b.errors();
  ops.b = std::move(b.value());
  if (core::Errors e = finish_scales(q, quant, p.n); !e.empty()) return e;
  auto dequantize = output_dequantize(o, &q);
  if (!dequantize) return dequantize.errors();
  p.a_zero = q.a_zero_point, p.b_zero = q.b_zero_point;
  p.out = q.out;
  if (!bias_path.empty()) {
    auto bias = read_npy(bias_path);
    if (!bias) return bias.errors();
    if (bias->dtype != core::DType::kInt32 || bias->shape != std::vector<std::uint64_t>{p.n})
      return core::Error{bias_path,
                         fmt::format("expected int32 of shape ({},), got {} {}", p.n,
                                     core::dtype_name(bias->dtype), io::shape_string(bias->shape))};
    p.has_bias = true;
    ops.bias = std::move(bias->bytes);
  }
  core::Errors size = qgemm_size_errors(p.m, p.n, p.k, p.has_bias, p.per_channel(), machine, true);
  if (!size.empty()) return size;
  auto instance = std::make_unique<QgemmInstance>(std::move(p), std::move(ops), o.text("layout-a"),
                                                  o.text("layout-b"), o.text("layout-c"));
  instance->dequantize_output(dequantize.value());
  return std::unique_ptr<Problem>(std::move(instance));
}

Result<std::unique_ptr<Problem>> from_seed(const Options& o, const machine::MachineConfig& machine) {
  const auto m = o.unsigned_int("m"), n = o.unsigned_int("n"), k = o.unsigned_int("k");
  if (core::Errors e = gemm_sizes_given(o, "--a/--b/--quant files"); !e.empty()) return e;
  if (auto d = output_dequantize(o, nullptr); !d) return d.errors();
  const bool int32_out = o.text("dtype-out") == "s32" || o.text("dtype-out") == "int32";
  if (int32_out) {
    if (o.flag("per-channel"))
      return core::Error{"--per-channel", "has no meaning with --dtype-out s32 (no requant)"};
    if (o.has("out-zero"))
      return core::Error{"--out-zero", "has no meaning with --dtype-out s32 (no requant)"};
    if (o.text("act") != "none")
      return core::Error{"--act", "has no meaning with --dtype-out s32 (no requant)"};
    if (o.text("rounding") != "double")
      return core::Error{"--rounding", "has no meaning with --dtype-out s32 (no requant)"};
  }
  const bool per_channel = o.flag("per-channel"), bias = !o.flag("no-bias") && !int32_out;
  // Refuse what the DRAM cannot hold before allocating any of it.
  core::Errors size = qgemm_size_errors(*m, *n, *k, bias, per_channel, machine, false);
  if (!size.empty()) return size;
  QgemmProblem p;
  p.m = *m, p.n = *n, p.k = *k;
  p.a_dtype = option_dtype(o.text("dtype-a"));
  p.b_dtype = option_dtype(o.text("dtype-b"));
  p.a_zero = option_zero(o, "a-zero", p.a_dtype);
  p.b_zero = option_zero(o, "b-zero", p.b_dtype);
  p.out = seeded_output_stage(o);
  // The operands are drawn when first needed (draw_operands); per-channel multipliers stand in
  // for the drawn ones until then. One drawn multiplier (--per-channel with N = 1) is a per-tensor
  // one, which the program itself holds: then everything is drawn now.
  p.out.multipliers.assign(per_channel ? p.n : 1,
                           numeric::quantize_multiplier(seeded_scale(p.k), p.out.rounding));
  p.has_bias = bias;
  p.int32_out = int32_out;
  const QgemmSeed seed{o.unsigned_int("seed").value_or(1), per_channel};
  if (per_channel && p.n == 1) {
    QgemmOperands ops = draw_operands(p, seed);
    p.out.multipliers = ops.multipliers;
    return std::unique_ptr<Problem>(new QgemmInstance(std::move(p), std::move(ops), o.text("layout-a"),
                                                      o.text("layout-b"), o.text("layout-c")));
  }
  return std::unique_ptr<Problem>(
      new QgemmInstance(std::move(p), seed, o.text("layout-a"), o.text("layout-b"), o.text("layout-c")));
}

}  // namespace

// Spread the accumulators (≈ √K·128²/3 wide) over the output range.
double seeded_scale(std::uint64_t k) { return 1.0 / (128.0 * std::sqrt(static_cast<double>(k))); }

QgemmOperands draw_operands(const QgemmProblem& p, const QgemmSeed& seed) {
  core::Mt19937_64 gen(seed.seed);
  auto bytes = [&](std::uint64_t count) {
    std::vector<std::uint8_t> v(count);
    for (auto& x : v) x = static_cast<std::uint8_t>(gen() >> 24);
    return v;
  };
  QgemmOperands ops;
  ops.a = bytes(p.m * p.k);
  ops.b = bytes(p.k * p.n);
  if (seed.per_channel)
    ops.multipliers = draw_channel_multipliers(gen, p.n, seeded_scale(p.k), p.out.rounding);
  if (p.has_bias) ops.bias = draw_bias(gen, p.n);
  return ops;
}

namespace {

Result<std::unique_ptr<Problem>> make_qgemm(const Options& o, const machine::MachineConfig& machine) {
  return operands_from_files(o, "b") ? from_files(o, machine) : from_seed(o, machine);
}

}  // namespace

Kernel qgemm_kernel() {
  return gemm_kernel("qgemm", "Quantized int8 GEMM C = requant(A·B + bias), verified bit-exactly",
                     qgemm_options(), "40", &make_qgemm, "");
}

}  // namespace treesim::kernels
