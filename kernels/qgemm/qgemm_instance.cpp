// The qgemm problem's steps after its operands exist: check, plan, program, DRAM image,
// reference, report fields. The planner and program builder throw; here that becomes values.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "kernels/gemm/gemm_estimate.h"
#include "kernels/gemm/gemm_tune.h"
#include "kernels/gemm/plan_file.h"
#include "kernels/operand_bytes.h"
#include "kernels/qgemm/qgemm_kernel.h"
#include "kernels/qgemm/qgemm_program.h"
#include "sim/layout/bound_layout.h"
#include "sim/layout/diagnostic.h"
#include "sim/layout/parse.h"
#include "sim/numeric/qgemm_reference.h"

namespace treesim::kernels {
Plan QgemmInstance::to_plan(const QgemmPlan& plan, const machine::MachineConfig& machine) const {
  Plan out;
  out.estimated_cycles = plan.estimated_cycles;
  out.description = describe(plan, machine) + "\nlayouts: A " + whole_layout_a(p_, plan, machine) +
                    "\n         B " + whole_layout_b(p_, plan, machine) + "\n         C " +
                    whole_layout_c(p_, plan, machine);
  if (a_in_lm_)
    out.description +=
        fmt::format("\nA: converted from the LMs (the unit before's output, at offset {})", a_in_lm_->lm);
  out.mapping = plan;
  return out;
}

Result<Plan> QgemmInstance::plan(const machine::MachineConfig& machine) const {
  if (!a_in_lm_) {
    Result<QgemmPlan> plan = front_.plan(p_, machine);
    if (!plan) return plan.errors();
    return to_plan(plan.value(), machine);
  }
  // The working buffers below A's region, every A tile a windowed convert (the short list: the
  // search does not price converts).
  machine::MachineConfig fit = machine;
  fit.levels.back().memory_bytes = a_in_lm_->lm;
  Result<QgemmPlan> plan = front_.plan(p_, fit, TilingRange::kShortList);
  if (!plan) return plan.errors();
  try {
    plan->estimated_cycles = estimate_with_a_in_lm(p_, plan.value(), *a_in_lm_, whole_rows_window(p_.k),
                                                   {p_.m, 1, 1, p_.k}, machine);
  } catch (const layout::LayoutError& e) {
    return core::Error{"", "invalid layout:\n" + trimmed(e.what())};
  } catch (const QgemmError& e) {
    return core::Error{"", e.what()};
  }
  return to_plan(plan.value(), machine);
}

Result<program::Program> QgemmInstance::program(const Plan& plan,
                                                const machine::MachineConfig& machine) const {
  const auto* mapping = std::any_cast<QgemmPlan>(&plan.mapping);
  if (!mapping) return core::Error{"", "qgemm: the plan was not made by qgemm"};
  return front_.program([&] {
    if (!a_in_lm_) return build_program(p_, *mapping, machine);
    GemmOperands ops;
    ops.a_window = whole_rows_window(p_.k);
    ops.a_shape = {p_.m, 1, 1, p_.k};
    ops.a_in_lm = a_in_lm_;
    return build_program(p_, *mapping, machine, ops);
  });
}

const QgemmOperands& QgemmInstance::operands() const {
  if (!ops_) ops_ = draw_operands(p_, *seed_);
  return *ops_;
}

numeric::OutputStage QgemmInstance::out_stage() const {
  numeric::OutputStage out = p_.out;
  if (!operands().multipliers.empty()) out.multipliers = operands().multipliers;
  return out;
}

DramImage QgemmInstance::inputs() const { return image(operands().a, operands().b); }

DramImage QgemmInstance::take_inputs() {
  if (!seed_) return inputs();  // operands from files cannot be made again
  operands();
  DramImage dram = image(std::move(ops_->a), std::move(ops_->b));
  ops_.reset();  // drawn again if reference() asks
  return dram;
}

DramImage QgemmInstance::image(std::vector<std::uint8_t> a, std::vector<std::uint8_t> b) const {
  const QgemmOperands& ops = operands();
  DramImage dram;  // emplaced: an initializer list would copy the bytes
  dram.emplace("A", std::move(a));
  dram.emplace("B", std::move(b));
  add_vectors(dram, ops.bias, out_stage());
  return dram;
}

Result<DramImage> QgemmInstance::reference() const {
  numeric::QGemmParams params;
  params.M = p_.m, params.N = p_.n, params.K = p_.k;
  params.a_dtype = p_.a_dtype, params.b_dtype = p_.b_dtype;
  params.a_zero_point = p_.a_zero, params.b_zero_point = p_.b_zero;
  const QgemmOperands& ops = operands();
  params.out = out_stage();
  return reference_c(params, codes(ops.a, p_.a_dtype), codes(ops.b, p_.b_dtype), ops.bias);
}

void QgemmInstance::add_report_fields(const Plan& plan, const machine::MachineConfig& machine,
                                      report::RunStats& stats) const {
  if (const auto* p = std::any_cast<QgemmPlan>(&plan.mapping)) add_plan_fields(*p, machine, stats);
}

}  // namespace treesim::kernels
