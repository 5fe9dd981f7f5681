#include "kernels/gemm/gemm_tune.h"

#include <algorithm>

#include <fmt/format.h>

namespace treesim::kernels {

Candidates gemm_candidates(const QgemmProblem& prob, const machine::MachineConfig& m, const Assignment& fixed,
                           const std::function<Plan(const QgemmPlan&)>& to_plan, TilingRange range) {
  // The default planner's search, keeping what it estimated (ranked by estimate, then enumeration
  // order: the default plan first); what it did not estimate is counted by why.
  PlanSearch search = search_plans(prob, m, fixed, /*keep_all=*/true, range);
  Candidates out;
  out.enumerated = search.enumerated;
  for (SearchedPlan& s : search.estimated)
    out.ranked.push_back({to_plan(s.plan), choice_text(s.plan, m), s.plan.lm_bytes});
  for (const auto& [reason, count] : search.pruned) out.pruned.emplace_back(prune_name(reason), count);
  // to_plan may price a plan otherwise (a convolution's windows): rank by what it says.
  std::stable_sort(out.ranked.begin(), out.ranked.end(), [](const Candidate& a, const Candidate& b) {
    return a.plan.estimated_cycles < b.plan.estimated_cycles;
  });
  return out;
}

std::string choice_text(const QgemmPlan& p, const machine::MachineConfig& m) {
  std::string levels;
  for (std::size_t l = 0; l < m.levels.size(); ++l) {
    // "L1B→M", "L2B→N/8" (8 of its units), "L2B→M/4·N/4" (shared).
    std::string dims;
    for (auto [list, name] :
         {std::pair{&p.assignment.m, "M"}, {&p.assignment.n, "N"}, {&p.assignment.k, "K"}})
      if (const std::uint64_t units = units_at(*list, l))
        dims += fmt::format("{}{}{}", dims.empty() ? "" : "·", name,
                            units == m.levels[l].fanout ? "" : fmt::format("/{}", units));
    levels += fmt::format("{}{}→{}", l ? " " : "", m.levels[l].name, dims.empty() ? "-" : dims);
  }
  return fmt::format("{}, C {}×{} in {}×{} passes, K {}×{}", levels, p.tm, p.tn, p.m_passes, p.n_passes,
                     p.steps, p.kt);
}

}  // namespace treesim::kernels
