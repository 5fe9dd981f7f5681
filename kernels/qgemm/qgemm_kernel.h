// qgemm under the kernel contract (kernels/kernel.h): a problem with its operands, planned,
// built, checked against the host reference and reported.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/kernel.h"
#include "kernels/qgemm/qgemm.h"

namespace treesim::kernels {

// A and B as the program's DRAM bytes; bias as int32 bytes (empty without bias).
struct QgemmOperands {
  std::vector<std::uint8_t> a, b, bias;
};

class QgemmInstance : public Problem {
 public:
  QgemmInstance(QgemmProblem problem, QgemmOperands operands, std::string layout_a, std::string layout_b,
                std::string layout_c)
      : p_(std::move(problem)),
        ops_(std::move(operands)),
        layout_a_(std::move(layout_a)),
        layout_b_(std::move(layout_b)),
        layout_c_(std::move(layout_c)) {}

  core::Errors check(const machine::MachineConfig& machine) const override;
  Result<Plan> plan(const machine::MachineConfig& machine) const override;
  Result<program::Program> program(const Plan& plan, const machine::MachineConfig& machine) const override;
  DramImage inputs() const override;
  Result<DramImage> reference() const override;
  void add_report_fields(const Plan& plan, const machine::MachineConfig& machine,
                         report::RunStats& stats) const override;
  std::vector<OutputArray> outputs() const override;

 private:
  QgemmProblem p_;
  QgemmOperands ops_;
  std::string layout_a_, layout_b_, layout_c_;
};

// DRAM bytes of every tensor of the problem, or an error naming the option that makes it too
// large for the machine's DRAM (checked arithmetic: nothing is allocated before this passes).
core::Errors qgemm_size_errors(std::uint64_t m, std::uint64_t n, std::uint64_t k, bool has_bias,
                               bool per_channel, const machine::MachineConfig& machine, bool from_files);

}  // namespace treesim::kernels
