#include "kernels/qgemm/gemm_tune.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace treesim::kernels {

Candidates gemm_candidates(const QgemmProblem& prob, const machine::MachineConfig& m, const Assignment& fixed,
                           const std::function<Plan(const QgemmPlan&)>& to_plan) {
  ShapedCandidates shaped = shape_candidates(prob, m, fixed);
  std::map<Prune, std::uint64_t> pruned = shaped.pruned;
  Candidates out;
  // Tiling choices can come to the same tiles: the program is then the same, tried once.
  std::set<std::vector<std::uint64_t>> seen;
  for (ShapedCandidate& sc : shaped.candidates) {
    ++out.enumerated;
    auto* plan = std::get_if<QgemmPlan>(&sc.outcome);
    if (!plan) continue;  // counted by shape_candidates
    std::vector<std::uint64_t> key{plan->tm,       plan->tn,       plan->kt,        plan->steps,
                                   plan->m_passes, plan->n_passes, plan->row_pieces};
    for (const auto* list : {&plan->assignment.m, &plan->assignment.n, &plan->assignment.k}) {
      key.push_back(list->size());
      for (const auto& u : *list) key.insert(key.end(), {u.level, u.size});
    }
    if (!seen.insert(std::move(key)).second) {
      ++pruned[Prune::kDuplicate];
      continue;
    }
    if (auto r = estimate_plan(prob, *plan, m)) {
      ++pruned[r->reason];
      continue;
    }
    out.ranked.push_back({to_plan(*plan), choice_text(*plan, m), plan->lm_bytes});
  }
  for (const auto& [reason, count] : pruned) {
    out.pruned.emplace_back(prune_name(reason), count);
    if (reason == Prune::kTooManyUnits) out.enumerated += count;  // never shaped
  }
  // The default planner's order: the least estimate, the earliest in enumeration on ties.
  std::stable_sort(out.ranked.begin(), out.ranked.end(), [](const Candidate& a, const Candidate& b) {
    return a.plan.estimated_cycles < b.plan.estimated_cycles;
  });
  return out;
}

std::string choice_text(const QgemmPlan& p, const machine::MachineConfig& m) {
  std::string levels;
  for (std::size_t l = 0; l < m.levels.size(); ++l) {
    const char* dim = "-";
    std::uint64_t units = m.levels[l].fanout;
    for (auto [list, name] :
         {std::pair{&p.assignment.m, "M"}, {&p.assignment.n, "N"}, {&p.assignment.k, "K"}})
      for (const auto& u : *list)
        if (u.level == l) dim = name, units = u.size;
    levels += fmt::format("{}{}→{}{}", l ? " " : "", m.levels[l].name, dim,
                          units == m.levels[l].fanout ? "" : fmt::format("/{}", units));
  }
  return fmt::format("{}, C {}×{} in {}×{} passes, K {}×{}", levels, p.tm, p.tn, p.m_passes, p.n_passes,
                     p.steps, p.kt);
}

}  // namespace treesim::kernels
