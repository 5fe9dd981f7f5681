// The Problem of a GEMM kernel (qgemm, tgemm): the steps both take alike through GemmFront — the
// checks, tuning candidates, plan files, and the useful MACs of the report. A kernel adds its
// operands, its plan's description (to_plan), its program and its reference.
#pragma once

#include <optional>
#include <string>

#include "kernels/gemm/gemm_front.h"
#include "kernels/kernel.h"
#include "kernels/qgemm/qgemm.h"

namespace treesim::kernels {

class GemmInstance : public Problem {
 public:
  GemmInstance(QgemmProblem problem, GemmFront front) : p_(std::move(problem)), front_(std::move(front)) {}

  core::Errors check(const machine::MachineConfig& machine) const override {
    return front_.check(p_, machine);
  }
  std::optional<std::uint64_t> useful_macs() const override { return p_.groups * p_.m * p_.n * p_.k; }
  Result<Candidates> candidates(const machine::MachineConfig& machine) const override {
    return front_.candidates(p_, machine, [&](const QgemmPlan& p) { return to_plan(p, machine); });
  }
  Result<std::string> plan_file(const Plan& plan, const machine::MachineConfig& machine) const override {
    return front_.plan_file(p_, plan, machine);
  }
  Result<Plan> plan_from_file(const std::string& path, const machine::MachineConfig& machine) const override {
    Result<QgemmPlan> p = front_.plan_from_file(path, p_, machine);
    if (!p) return p.errors();
    return to_plan(p.value(), machine);
  }

 protected:
  // The kernel's Plan of a GEMM plan: its estimate, description and mapping.
  virtual Plan to_plan(const QgemmPlan& plan, const machine::MachineConfig& machine) const = 0;

  QgemmProblem p_;
  GemmFront front_;  // the given layouts, and what qgemm and tgemm share
};

}  // namespace treesim::kernels
