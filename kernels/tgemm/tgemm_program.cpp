// The tgemm program: kernels/gemm's schedule with W's path as the B hook. W is loaded first in a
// step (so that its decode need not wait for A's load); packed, each step's tile is decoded in
// every PE into the MAC's buffer, the decode of step g+1 overlapping MAC g. The ternary MAC reads it.
#include "kernels/gemm/gemm_program.h"
#include "kernels/tgemm/tgemm.h"
#include "sim/timing/cost_model.h"

namespace treesim::kernels {
namespace {

using timing::ceil_div;

class TernaryW : public BPath {
 public:
  TernaryW(const QgemmProblem& prob, const QgemmPlan& p, WeightEncoding e) : prob_(prob), p_(p), e_(e) {}
  std::string tensor() const override { return "W"; }
  core::DType dtype() const override { return packed() ? core::DType::kUInt8 : core::DType::kInt8; }
  std::uint64_t weights_per_row() const override { return weights_per_byte(e_); }
  std::int32_t pad() const override { return packed() ? zero_weights_byte(e_) : 0; }
  bool loads_before_a() const override { return true; }
  std::uint64_t load_lm(std::uint64_t step) const override {
    return packed() ? p_.lm_w[step % p_.buffers] : b_tile_lm(p_, step);
  }
  // Packed tiles are decoded into two buffers, alternating.
  std::uint64_t mac_lm(std::uint64_t step) const override {
    return packed() ? p_.lm_b[step % 2] : load_lm(step);
  }
  std::optional<program::Instr> decode(std::uint64_t step) const override {
    if (!packed()) return std::nullopt;
    program::DptDecode d;
    d.src = load_lm(step), d.dst = mac_lm(step);
    d.bytes = p_.kt / weights_per_row() * p_.tn;
    d.cols = p_.tn;
    d.codec = codec_of(e_);
    return d;
  }
  program::Instr mac(const MacTile& t) const override {
    program::TernaryMac mac;
    mac.a = t.a, mac.w = t.b, mac.c = t.c;
    mac.m = t.m, mac.n = t.n, mac.k = t.k;
    mac.a_dtype = prob_.a_dtype;
    mac.a_zero = prob_.a_zero;
    mac.accumulate = t.accumulate;
    return mac;
  }

 private:
  bool packed() const { return e_ != WeightEncoding::kInt8; }
  const QgemmProblem& prob_;
  const QgemmPlan& p_;
  WeightEncoding e_;
};

}  // namespace

program::Program build_tgemm_program(const QgemmProblem& prob, const QgemmPlan& p,
                                     const machine::MachineConfig& m, WeightEncoding e) {
  return build_gemm_program(prob, p, m, GemmOperands{}, TernaryW(prob, p, e));
}

std::uint64_t weight_dram_bytes(const QgemmProblem& prob, const QgemmPlan& p, WeightEncoding e) {
  const std::uint64_t t = weights_per_byte(e), block_n = p.pn * p.tn, block_m = p.pm * p.tm;
  const std::uint64_t block_k = p.pk * p.kt;
  std::uint64_t rows = 0;  // W rows (bytes rows when packed) of one sweep over K
  for (std::uint64_t k0 = 0; k0 < prob.k; k0 += block_k) rows += ceil_div(std::min(block_k, prob.k - k0), t);
  std::uint64_t total = 0;
  for (std::uint64_t pn = 0; pn < p.n_passes && pn * block_n < prob.n; ++pn) {
    const std::uint64_t bn = std::min(block_n, prob.n - pn * block_n);
    for (std::uint64_t pm = 0; pm < p.m_passes && pm * block_m < prob.m; ++pm) {
      total += rows * bn;
      if (p.stationary == Stationary::kB) break;  // loaded by the column block's first pass
    }
  }
  return total;
}

}  // namespace treesim::kernels
