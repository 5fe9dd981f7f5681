// The Problem of a GEMM kernel (qgemm, tgemm): the steps both take alike — through GemmFront the
// checks, tuning candidates and plan files; the input tensors and the per-column vectors of the
// DRAM image, the host reference's C, the report's fields and useful MACs, and C as the output. A
// kernel adds its operands (its weight path: int8 B or packed ternary W), its plan's description
// (to_plan) and its program.
#pragma once

#include <optional>
#include <string>

#include "kernels/gemm/gemm.h"
#include "kernels/gemm/gemm_front.h"
#include "kernels/kernel.h"
#include "sim/numeric/qgemm_reference.h"

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
  // A, B (or W), then bias, multiplier and shift when the problem has them.
  std::vector<std::string> input_tensors() const override;
  std::vector<OutputArray> outputs() const override;
  // --out-dtype f32: outputs() asks the driver to write C dequantized.
  void dequantize_output(std::optional<OutputArray::Dequantize> d) { dequantize_ = d; }

 protected:
  // The kernel's Plan of a GEMM plan: its estimate, description and mapping.
  virtual Plan to_plan(const QgemmPlan& plan, const machine::MachineConfig& machine) const = 0;

  // The DRAM image's per-column vectors: `bias` (int32 bytes) and the output stage's multipliers
  // and shifts when per channel.
  void add_vectors(DramImage& dram, const std::vector<std::uint8_t>& bias,
                   const numeric::OutputStage& out) const;
  // The host reference's C of A and B as codes (int32 accumulators for an int32 output), as the
  // DRAM image's "C"; an error when the reference rejects the problem.
  Result<DramImage> reference_c(const numeric::QGemmParams& params, const std::vector<std::int32_t>& a,
                                const std::vector<std::int32_t>& b,
                                const std::vector<std::uint8_t>& bias) const;
  // The report's plan, layouts and tile fields.
  void add_plan_fields(const QgemmPlan& plan, const machine::MachineConfig& machine,
                       report::RunStats& stats) const;

  QgemmProblem p_;
  GemmFront front_;  // the given layouts, and what qgemm and tgemm share
  std::optional<OutputArray::Dequantize> dequantize_;
};

}  // namespace treesim::kernels
