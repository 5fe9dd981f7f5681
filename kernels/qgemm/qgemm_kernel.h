// qgemm under the kernel contract (kernels/kernel.h): a problem with its operands, planned,
// built, checked against the host reference and reported.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/gemm/gemm.h"
#include "kernels/gemm/gemm_instance.h"
#include "kernels/kernel.h"

namespace treesim::kernels {

// A and B as the program's DRAM bytes; bias as int32 bytes (empty without bias); the output
// multipliers when they were drawn with the operands (empty: the problem's own).
struct QgemmOperands {
  std::vector<std::uint8_t> a, b, bias;
  std::vector<numeric::QuantizedMultiplier> multipliers;
};

// How random operands are drawn: --seed, and --per-channel (N multipliers drawn, even when N = 1).
struct QgemmSeed {
  std::uint64_t seed = 1;
  bool per_channel = false;
};

// Random operands for a problem, drawn from one mt19937_64 stream in this order: A, B, the
// per-channel multipliers, the bias (when the problem has one).
QgemmOperands draw_operands(const QgemmProblem& problem, const QgemmSeed& seed);
// The per-tensor multiplier, and the base scale of per-channel ones, of a seeded problem.
double seeded_scale(std::uint64_t k);

class QgemmInstance : public GemmInstance {
 public:
  QgemmInstance(QgemmProblem problem, QgemmOperands operands, std::string layout_a, std::string layout_b,
                std::string layout_c)
      : GemmInstance(
            std::move(problem),
            GemmFront("qgemm", "B", {std::move(layout_a), std::move(layout_b), std::move(layout_c)})),
        ops_(std::move(operands)) {}
  // Seeded operands are drawn when inputs() or reference() first needs them, so that a timing-only
  // run never makes them. Until then a per-channel problem's N multipliers are stand-ins (the base
  // scale): only their number shapes the plan and the program.
  QgemmInstance(QgemmProblem problem, QgemmSeed seed, std::string layout_a, std::string layout_b,
                std::string layout_c)
      : GemmInstance(
            std::move(problem),
            GemmFront("qgemm", "B", {std::move(layout_a), std::move(layout_b), std::move(layout_c)})),
        seed_(seed) {}

  Result<Plan> plan(const machine::MachineConfig& machine) const override;
  Result<program::Program> program(const Plan& plan, const machine::MachineConfig& machine) const override;
  DramImage inputs() const override;
  DramImage take_inputs() override;
  Result<DramImage> reference() const override;
  void add_report_fields(const Plan& plan, const machine::MachineConfig& machine,
                         report::RunStats& stats) const override;
  // A already in the LMs, where the unit before left it (kernels/graph: a flattened convolution output, its
  // elements A's in row-major order): each A tile a windowed convert of it, the plan's working
  // buffers below its region.
  void read_a_in_lm(std::optional<LmTensor> a) { a_in_lm_ = std::move(a); }

 private:
  Plan to_plan(const QgemmPlan& plan, const machine::MachineConfig& machine) const override;
  const QgemmOperands& operands() const;
  numeric::OutputStage out_stage() const;  // the problem's, with the drawn multipliers
  DramImage image(std::vector<std::uint8_t> a, std::vector<std::uint8_t> b) const;  // A, B and the rest

  std::optional<QgemmSeed> seed_;
  mutable std::optional<QgemmOperands> ops_;  // drawn on first use when seeded
  std::optional<LmTensor> a_in_lm_;
};

}  // namespace treesim::kernels
