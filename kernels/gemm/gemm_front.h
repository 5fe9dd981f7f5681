// What qgemm and tgemm share before their programs: the problem's and the given layouts' checks,
// the levels those layouts fix, the default plan, tuning candidates and plan files — errors as
// values that name the options. tgemm's weights are W (`--layout-w`) where qgemm's are B.
#pragma once

#include <functional>
#include <string>

#include "kernels/gemm/gemm.h"
#include "kernels/kernel.h"

namespace treesim::kernels {

// The whole operands' layouts an instance was given (empty: the planner chooses).
struct GemmLayouts {
  std::string a, b, c;
};

class GemmFront {
 public:
  // `kernel`: "qgemm" or "tgemm" (plan files name it); `b_name`: "B" or "W".
  GemmFront(std::string kernel, std::string b_name, GemmLayouts layouts);

  const GemmLayouts& layouts() const { return layouts_; }
  const std::string& b_name() const { return b_name_; }  // "B" or "W"
  // check_problem and the DRAM the operands need.
  core::Errors check(const QgemmProblem& problem, const machine::MachineConfig& machine) const;
  // The given layouts that do not parse or bind (the whole operand need not fit the LM).
  core::Errors layout_errors(const QgemmProblem& problem, const machine::MachineConfig& machine) const;
  // The levels the given layouts fix (assignment_from_layouts).
  Result<Assignment> fixed(const QgemmProblem& problem, const machine::MachineConfig& machine) const;
  // The default planner's plan on `machine` for what the layouts leave open.
  Result<QgemmPlan> plan(const QgemmProblem& problem, const machine::MachineConfig& machine,
                         TilingRange range = TilingRange::kComplete) const;
  Result<Candidates> candidates(const QgemmProblem& problem, const machine::MachineConfig& machine,
                                const std::function<Plan(const QgemmPlan&)>& to_plan) const;
  Result<std::string> plan_file(const QgemmProblem& problem, const Plan& plan,
                                const machine::MachineConfig& machine) const;
  // A plan file's plan; refused when layouts were given too (the file fixes them).
  Result<QgemmPlan> plan_from_file(const std::string& path, const QgemmProblem& problem,
                                   const machine::MachineConfig& machine) const;
  // The program `build` makes, its layout and GEMM errors as values.
  Result<program::Program> program(const std::function<program::Program()>& build) const;

  // A planner's message with B's option named as this kernel names it.
  std::string named(std::string message) const;

 private:
  std::string kernel_, b_name_, b_option_;
  GemmLayouts layouts_;
};

// An error message without its trailing newlines (layout errors end in one).
std::string trimmed(std::string s);

// DRAM bytes of every tensor of the problem, or an error naming the option that makes it too
// large for the machine's DRAM (checked arithmetic: nothing is allocated before this passes).
core::Errors gemm_size_errors(std::uint64_t m, std::uint64_t n, std::uint64_t k, bool has_bias,
                              bool per_channel, const machine::MachineConfig& machine, bool from_files);

}  // namespace treesim::kernels
