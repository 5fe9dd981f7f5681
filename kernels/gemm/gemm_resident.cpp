// A qgemm plan for a network layer whose activations stay in the LMs: the same assignment and tiling
// choice, its buffers shaped on what the resident regions leave of the LM.
#include <fmt/format.h>

#include "kernels/gemm/gemm.h"
#include "sim/timing/cost_model.h"

namespace treesim::kernels {

std::variant<QgemmPlan, Rejection> resident_plan(const QgemmProblem& prob, const QgemmPlan& plan,
                                                 const machine::MachineConfig& m, bool a, bool c,
                                                 std::uint64_t leave) {
  if (!a && !c) return plan;
  const std::uint64_t lm = m.lm_bytes(), w = lm_words(m);
  auto aligned = [&](std::uint64_t bytes) { return timing::ceil_div(bytes, w) * w; };
  // The resident bytes depend on the tiles (their padding), and the tiles on the LM left: shape
  // the buffers on what the regions leave, until the regions of the shaped plan fit too.
  auto needed = [&](const QgemmPlan& q) {
    return (a ? aligned(resident_bytes_a(prob, q)) : 0) + (c ? aligned(resident_bytes_c(prob, q)) : 0) +
           aligned(leave);
  };
  std::uint64_t need = needed(plan);
  for (int round = 0; round < 8 && need < lm; ++round) {
    machine::MachineConfig rest = m;
    rest.levels.back().memory_bytes = lm - need;
    // Resident A needs no loads to keep.
    Tiling tiling = plan.tiling;
    if (a && tiling.stationary == Stationary::kA) tiling.stationary = Stationary::kNone;
    auto shaped = try_shape_plan(prob, rest, plan.assignment, tiling);
    if (auto* r = std::get_if<Rejection>(&shaped)) {
      r->message = fmt::format("beside {} resident bytes: {}", need, r->message);
      return *r;
    }
    QgemmPlan q = std::get<QgemmPlan>(std::move(shaped));
    const std::uint64_t now = needed(q);
    if (aligned(q.lm_bytes) + now <= lm) {
      if (a) q.a_resident = 0;
      if (c) q.c_resident = 0;
      if (auto r = estimate_plan(prob, q, m)) return *r;
      return q;
    }
    need = std::max(now, need + w);
  }
  return Rejection{Prune::kLmOverflow,
                   fmt::format("the resident activations need {} of the LM's {} bytes with no room left for "
                               "a K step",
                               need, lm)};
}

}  // namespace treesim::kernels
