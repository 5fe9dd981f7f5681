// The qgemm program: kernels/gemm's schedule with B loaded as int8.
#include "kernels/qgemm/qgemm_program.h"

#include "kernels/gemm/gemm_program.h"

namespace treesim::kernels {

namespace {

// qgemm's B: int8 (or uint8) tiles loaded as they are, padded with B's zero point.
class Int8B : public BPath {
 public:
  explicit Int8B(const QgemmProblem& prob, const QgemmPlan& p) : prob_(prob), p_(p) {}
  std::string tensor() const override { return "B"; }
  core::DType dtype() const override { return prob_.b_dtype; }
  std::int32_t pad() const override { return prob_.b_zero; }
  std::uint64_t load_lm(std::uint64_t step) const override { return b_tile_lm(p_, step); }
  program::Instr mac(const MacTile& t) const override {
    program::Mac mac;
    mac.a = t.a, mac.b = t.b, mac.c = t.c;
    mac.m = t.m, mac.n = t.n, mac.k = t.k;
    mac.a_dtype = prob_.a_dtype, mac.b_dtype = prob_.b_dtype;
    mac.a_zero = prob_.a_zero, mac.b_zero = prob_.b_zero;
    mac.accumulate = t.accumulate;
    return mac;
  }

 private:
  const QgemmProblem& prob_;
  const QgemmPlan& p_;
};

}  // namespace

program::Program build_program(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m,
                               const GemmOperands& operands) {
  return build_gemm_program(prob, p, m, operands, Int8B(prob, p));
}

}  // namespace treesim::kernels
