// qgemm's options and its problem: random operands from --seed, or A, B, bias and the output
// stage from .npy and quantization files.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/float_operands.h"
#include "kernels/gemm/gemm_files.h"
#include "kernels/gemm/gemm_options.h"
#include "kernels/qgemm/qgemm_kernel.h"
#include "kernels/seeded_options.h"
#include "sim/core/mt19937_64.h"
#include "sim/io/npy.h"
#include "sim/numeric/quant_file.h"

namespace treesim::kernels {
namespace {

Result<std::unique_ptr<Problem>> from_files(const Options& o, const machine::MachineConfig& machine) {
  QgemmOperands ops;
  Result<GemmFiles> f = read_gemm_files(
      o, "b",
      [&](GemmFiles& files, const std::string& quant) -> core::Errors {
        std::uint64_t k = files.p.k;
        auto b = read_operand(o.text("b"), files.p.b_dtype, k, files.p.n, "K", "N", Operand::kB,
                              option_dtype(o.text("dtype-b")), files.q, quant);
        if (!b) return b.errors();
        ops.b = std::move(b.value());
        return {};
      },
      machine);
  return instance_from_files(std::move(f), [&](GemmFiles& files) {
    ops.a = std::move(files.a), ops.bias = std::move(files.bias);
    return std::make_unique<QgemmInstance>(std::move(files.p), std::move(ops), o.text("layout-a"),
                                           o.text("layout-b"), o.text("layout-c"));
  });
}

Result<std::unique_ptr<Problem>> from_seed(const Options& o, const machine::MachineConfig& machine) {
  Result<QgemmProblem> problem = seeded_gemm_problem(o, WeightPath::kInt8, &seeded_scale, machine);
  if (!problem) return problem.errors();
  QgemmProblem& p = problem.value();
  const bool per_channel = o.flag("per-channel");
  // The operands are drawn when first needed (draw_operands); per-channel multipliers stand in
  // for the drawn ones until then. One drawn multiplier (--per-channel with N = 1) is a per-tensor
  // one, which the program itself holds: then everything is drawn now.
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
                     gemm_options(WeightPath::kInt8), "40", &make_qgemm, "");
}

}  // namespace treesim::kernels
