// tgemm under the kernel contract (kernels/kernel.h).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/gemm/gemm_instance.h"
#include "kernels/kernel.h"
#include "kernels/tgemm/tgemm.h"

namespace treesim::kernels {

// A's bytes, W's weights (row-major K×N, −1/0/+1), bias as int32 bytes (empty without bias), and
// the drawn per-channel multipliers (empty: the problem's own).
struct TgemmOperands {
  std::vector<std::uint8_t> a;
  std::vector<std::int8_t> w;
  std::vector<std::uint8_t> bias;
  std::vector<numeric::QuantizedMultiplier> multipliers;
};

// Random operands from one mt19937_64 stream in this order: A, W, the per-channel multipliers, the
// bias (when the problem has one).
TgemmOperands draw_tgemm_operands(const QgemmProblem& problem, std::uint64_t seed, bool per_channel);
// The per-tensor multiplier, and the base scale of per-channel ones, of a seeded problem.
double tgemm_seeded_scale(std::uint64_t k);

class TgemmInstance : public GemmInstance {
 public:
  struct Layouts {
    std::string a, w, c;
  };
  TgemmInstance(QgemmProblem problem, WeightEncoding e, TgemmOperands operands, Layouts layouts);
  // Seeded operands are drawn when first needed, so that a timing-only run never makes them.
  TgemmInstance(QgemmProblem problem, WeightEncoding e, std::uint64_t seed, bool per_channel,
                Layouts layouts);

  Result<Plan> plan(const machine::MachineConfig& machine) const override;
  Result<program::Program> program(const Plan& plan, const machine::MachineConfig& machine) const override;
  DramImage inputs() const override;
  Result<DramImage> reference() const override;
  void add_report_fields(const Plan& plan, const machine::MachineConfig& machine,
                         report::RunStats& stats) const override;

 private:
  Plan to_plan(const QgemmPlan& plan, const machine::MachineConfig& machine) const override;
  const TgemmOperands& operands() const;
  numeric::OutputStage out_stage() const;

  WeightEncoding e_;
  std::optional<std::uint64_t> seed_;
  bool per_channel_seed_ = false;
  mutable std::optional<TgemmOperands> ops_;
  mutable std::vector<std::uint8_t> w_bytes_;  // W packed, made with the operands
};

}  // namespace treesim::kernels
