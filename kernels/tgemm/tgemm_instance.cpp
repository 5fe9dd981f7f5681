// The tgemm problem's steps after its operands exist: check, plan (qgemm's planner with W packed),
// program, DRAM image, reference (the plain codec, then the int8 reference GEMM), report fields.
#include <fmt/format.h>

#include <cstring>

#include "kernels/gemm/gemm_options.h"
#include "kernels/gemm/gemm_tune.h"
#include "kernels/gemm/plan_file.h"
#include "kernels/operand_bytes.h"
#include "kernels/tgemm/tgemm_kernel.h"
#include "sim/core/mt19937_64.h"
#include "sim/layout/bound_layout.h"
#include "sim/layout/parse.h"
#include "sim/numeric/qgemm_reference.h"

namespace treesim::kernels {
double tgemm_seeded_scale(std::uint64_t k) {
  // (a − Z)·w has an RMS of about 74·√(2/3) ≈ 60: spread √K of it over the output range.
  return 1.0 / (64.0 * std::sqrt(static_cast<double>(k)));
}

TgemmOperands draw_tgemm_operands(const QgemmProblem& p, std::uint64_t seed, bool per_channel) {
  core::Mt19937_64 gen(seed);
  TgemmOperands ops;
  ops.a.resize(p.m * p.k);
  for (auto& x : ops.a) x = static_cast<std::uint8_t>(gen() >> 24);
  ops.w.resize(p.k * p.n);
  for (auto& x : ops.w) x = static_cast<std::int8_t>(static_cast<int>((gen() >> 24) % 3) - 1);
  if (per_channel)
    ops.multipliers = draw_channel_multipliers(gen, p.n, tgemm_seeded_scale(p.k), p.out.rounding);
  if (p.has_bias) ops.bias = draw_bias(gen, p.n);
  return ops;
}

TgemmInstance::TgemmInstance(QgemmProblem problem, WeightEncoding e, TgemmOperands operands, Layouts layouts)
    : GemmInstance(
          std::move(problem),
          GemmFront("tgemm", "W", {std::move(layouts.a), std::move(layouts.w), std::move(layouts.c)})),
      e_(e),
      ops_(std::move(operands)) {
  set_weight_encoding(p_, e_);
}

TgemmInstance::TgemmInstance(QgemmProblem problem, WeightEncoding e, std::uint64_t seed, bool per_channel,
                             Layouts layouts)
    : GemmInstance(
          std::move(problem),
          GemmFront("tgemm", "W", {std::move(layouts.a), std::move(layouts.w), std::move(layouts.c)})),
      e_(e),
      seed_(seed),
      per_channel_seed_(per_channel) {
  set_weight_encoding(p_, e_);
}

const TgemmOperands& TgemmInstance::operands() const {
  if (!ops_) ops_ = draw_tgemm_operands(p_, *seed_, per_channel_seed_);
  if (w_bytes_.empty()) w_bytes_ = pack_weights(ops_->w, p_.k, p_.n, e_);
  return *ops_;
}

numeric::OutputStage TgemmInstance::out_stage() const {
  numeric::OutputStage out = p_.out;
  if (!operands().multipliers.empty()) out.multipliers = operands().multipliers;
  return out;
}

Plan TgemmInstance::to_plan(const QgemmPlan& plan, const machine::MachineConfig& machine) const {
  Plan out;
  out.estimated_cycles = plan.estimated_cycles;
  out.description = describe(plan, machine) + fmt::format("; W as {}", to_string(e_)) + "\nlayouts: A " +
                    whole_layout_a(p_, plan, machine) + "\n         W " + whole_layout_b(p_, plan, machine) +
                    "\n         C " + whole_layout_c(p_, plan, machine);
  out.mapping = plan;
  return out;
}

Result<Plan> TgemmInstance::plan(const machine::MachineConfig& machine) const {
  Result<QgemmPlan> plan = front_.plan(p_, machine);
  if (!plan) return plan.errors();
  return to_plan(plan.value(), machine);
}

Result<program::Program> TgemmInstance::program(const Plan& plan,
                                                const machine::MachineConfig& machine) const {
  const auto* mapping = std::any_cast<QgemmPlan>(&plan.mapping);
  if (!mapping) return core::Error{"", "tgemm: the plan was not made by tgemm"};
  return front_.program([&] { return build_tgemm_program(p_, *mapping, machine, e_); });
}

DramImage TgemmInstance::inputs() const {
  const TgemmOperands& ops = operands();
  DramImage dram{{"A", ops.a}, {"W", w_bytes_}};
  add_vectors(dram, ops.bias, out_stage());
  return dram;
}

Result<DramImage> TgemmInstance::reference() const {
  const TgemmOperands& ops = operands();
  numeric::QGemmParams params;
  params.M = p_.m, params.N = p_.n, params.K = p_.k;
  params.a_dtype = p_.a_dtype, params.b_dtype = core::DType::kInt8;
  params.a_zero_point = p_.a_zero, params.b_zero_point = 0;
  params.out = out_stage();
  // W as the DRAM holds it, unpacked with the plain codec: the reference shares no decoder with the PEs.
  std::vector<std::int8_t> w;
  try {
    w = unpack_weights(w_bytes_, p_.k, p_.n, e_);
  } catch (const numeric::TernaryError& e) {
    return core::Error{"", fmt::format("W: byte offset {}: {}", e.index(), e.what())};
  }
  std::vector<std::int32_t> a(ops.a.size()), b(w.begin(), w.end());
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = p_.a_dtype == core::DType::kUInt8 ? ops.a[i] : static_cast<std::int8_t>(ops.a[i]);
  return reference_c(params, a, b, ops.bias);
}

void TgemmInstance::add_report_fields(const Plan& plan, const machine::MachineConfig& machine,
                                      report::RunStats& stats) const {
  const auto* p = std::any_cast<QgemmPlan>(&plan.mapping);
  if (!p) return;
  add_plan_fields(*p, machine, stats);
  stats.info["weight_encoding"] = to_string(e_);
  stats.extra["w_bytes"] = weight_bytes(p_.k, p_.n, e_);
  stats.extra["w_dram_read_bytes"] = weight_dram_bytes(p_, *p, e_);
}

}  // namespace treesim::kernels
