// spmv and spmm under the kernel contract (kernels/kernel.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/kernel.h"
#include "kernels/spmv/spmv.h"

namespace treesim::kernels {

class SparseInstance : public Problem {
 public:
  SparseInstance(SparseProblem p, machine::MachineConfig machine);

  core::Errors check(const machine::MachineConfig& machine) const override;
  Result<Plan> plan(const machine::MachineConfig& machine) const override;
  Result<program::Program> program(const Plan& plan, const machine::MachineConfig& machine) const override;
  const program::CheckedProgram* checked_program(const Plan& plan) const override;
  DramImage inputs() const override;
  std::vector<std::string> input_tensors() const override;
  Result<DramImage> reference() const override;
  void add_report_fields(const Plan& plan, const machine::MachineConfig& machine,
                         report::RunStats& stats) const override;
  // The operands' movement on its own: `A` (the shares' load), `x` (or `B`: the row gather) and `y`
  // (or `C`: the row scatter).
  std::vector<Phase> phases(const Plan& plan, const program::Program& program,
                            const machine::MachineConfig& machine) const override;
  std::vector<OutputArray> outputs() const override;
  std::optional<std::uint64_t> useful_macs() const override { return p_.nonzeros * p_.n; }
  // Tuning: every encoding of the tuner's list (spmv_tune.cpp) × partition × pass plan, by estimate.
  Result<Candidates> candidates(const machine::MachineConfig& machine) const override;
  Result<std::string> plan_file(const Plan& plan, const machine::MachineConfig& machine) const override;
  Result<Plan> plan_from_file(const std::string& path, const machine::MachineConfig& machine) const override;

  const SparseProblem& problem() const { return p_; }
  // The options' placement on `m`, or why it cannot be made or does not fit the LMs.
  core::Errors options_placement_fits(const machine::MachineConfig& m) const;

 private:
  // The split over the machine's PEs, made once (the machine of a run does not change).
  Result<std::shared_ptr<const SparsePlacement>> placement(const machine::MachineConfig& machine) const;
  std::string output_name() const;
  // The plan of a placement: its estimate (the program's steps list-scheduled) and description.
  Result<Plan> plan_of(std::shared_ptr<const SparsePlacement> placed, const machine::MachineConfig& m) const;

  SparseProblem p_;
  machine::MachineConfig machine_;  // the machine it was made for: inputs() place A on it
  mutable std::shared_ptr<const SparsePlacement> placement_;
  // The placement of the plan program() last built: inputs() pack A as it places it.
  mutable std::shared_ptr<const SparsePlacement> built_;
  // The checked program of the plan plan_of made last (its estimate checks it), for the run.
  mutable std::weak_ptr<const SparsePlacement> checked_for_;  // weak: a new plan may reuse the address
  mutable std::shared_ptr<const program::CheckedProgram> checked_;
};

}  // namespace treesim::kernels
