// The GEMM planners' search: every level assignment, pass count and K step count, pruned by bounds.
#include <algorithm>
#include <numeric>
#include <set>
#include <tuple>

#include "kernels/qgemm/qgemm.h"
#include "kernels/qgemm/qgemm_estimate.h"

namespace treesim::kernels {
namespace {

// Every assignment of the free levels to M, N, K or none at full fan-out, in enumeration order;
// those with more units than elements are only counted.
std::vector<Assignment> assignments(const QgemmProblem& prob, const machine::MachineConfig& m,
                                    const Assignment& fixed, std::uint64_t& too_many) {
  const std::size_t levels = m.levels.size();
  std::vector<bool> taken(levels, false);
  for (const auto* list : {&fixed.m, &fixed.n, &fixed.k})
    for (const auto& u : *list) taken[u.level] = true;
  std::vector<Assignment> out;
  std::uint64_t combos = 1;
  for (std::size_t l = 0; l < levels; ++l) combos *= 4;
  for (std::uint64_t code = 0; code < combos; ++code) {
    Assignment a = fixed;
    std::uint64_t c = code;
    bool skip = false;
    for (std::size_t l = 0; l < levels; ++l, c /= 4) {
      const int choice = static_cast<int>(c % 4);
      if (taken[l]) {
        skip = skip || choice != 0;  // fixed levels are enumerated once
        continue;
      }
      const Assignment::Use use{l, m.levels[l].fanout};
      // A level of one unit splits nothing: only "none" (any other is the same plan, later).
      if (choice != 0 && use.size == 1) {
        skip = true;
        continue;
      }
      if (choice == 1 && !fixed.fixed_m)
        a.m.push_back(use);
      else if (choice == 2 && !fixed.fixed_n)
        a.n.push_back(use);
      else if (choice == 3 && !fixed.fixed_k)
        a.k.push_back(use);
      else if (choice != 0)
        skip = true;
    }
    if (skip) continue;
    if ((!fixed.fixed_m && units_of(a.m) > prob.m * 2) || (!fixed.fixed_n && units_of(a.n) > prob.n * 2) ||
        (!fixed.fixed_k && units_of(a.k) > prob.k)) {
      ++too_many;
      continue;
    }
    out.push_back(std::move(a));
  }
  return out;
}

// One pass count of one assignment: its plan with the fewest K steps, and the bound of every step
// count's plan.
struct Passes {
  QgemmPlan plan;
  double bound = 0;
  std::uint64_t order = 0;
};

// Orders grow in enumeration order: an assignment's pass counts, then each one's step counts.
constexpr std::uint64_t kStepOrders = std::uint64_t{1} << 24;

}  // namespace

PlanSearch search_plans(const QgemmProblem& prob, const machine::MachineConfig& m, const Assignment& fixed,
                        bool keep_all, TilingRange range) {
  const bool complete = range == TilingRange::kComplete;
  PlanSearch out;
  std::uint64_t error_order = 0;
  auto failed = [&](Prune reason, const std::string& message, std::uint64_t order) {
    ++out.pruned[reason];
    if (order < error_order) return;
    out.error = message;
    error_order = order;
  };
  std::uint64_t too_many = 0;
  const std::vector<Assignment> candidates = assignments(prob, m, fixed, too_many);
  if (too_many) out.pruned[Prune::kTooManyUnits] += too_many;
  // Each assignment's distinct pass counts: 1, 2, 3 or 4 times the LM's, split 0, 1, 2, ... times more
  // until C splits no further.
  std::vector<Passes> passes;
  std::uint64_t order = 0;
  // Three buffers only in the whole range: the short list's tuners price two.
  const std::vector<std::uint64_t> buffer_counts =
      complete ? std::vector<std::uint64_t>{2, 3} : std::vector<std::uint64_t>{2};
  // A or B stationary too in the whole range (try_shape_plan keeps neither where there is one pass
  // to keep it over, which the duplicate check then counts).
  const std::vector<Stationary> stationary =
      complete ? std::vector<Stationary>{Stationary::kNone, Stationary::kB, Stationary::kA}
               : std::vector<Stationary>{Stationary::kNone};
  for (const Assignment& a : candidates) {
    // Three times the LM's passes too in the whole range (a small last pass, whose store is the
    // run's tail), but not where K is split: those take K in the fewest steps (below), and a pass
    // count that only a smaller LM needs in two steps would make more LM worse.
    const std::vector<std::uint64_t> extras = complete && units_of(a.k) == 1
                                                  ? std::vector<std::uint64_t>{1, 2, 3, 4}
                                                  : std::vector<std::uint64_t>{1, 2, 4};
    std::set<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t, Stationary>> seen;
    for (const Stationary kept : stationary) {
      bool hopeless = false;
      for (std::uint64_t buffers : buffer_counts) {
        for (std::uint64_t extra : extras) {
          for (std::uint64_t splits = 0; !hopeless && (complete || splits == 0); ++splits) {
            order += kStepOrders;
            Tiling tiling{extra, 1, splits, buffers, !complete};
            tiling.stationary = kept;
            auto shaped = try_shape_plan(prob, m, a, tiling);
            if (auto* r = std::get_if<Rejection>(&shaped)) {
              if (r->reason == Prune::kNoFurtherSplit) {
                ++out.pruned[r->reason];
              } else {
                failed(r->reason, r->message, order);
                // What no pass count mends (K over the wrong levels, a row that cannot fit) ends the
                // assignment; a map that overflows by its alignment gaps may fit with smaller tiles.
                hopeless = r->reason != Prune::kLmOverflow;
                if (!hopeless && splits < 64) continue;
              }
              break;
            }
            QgemmPlan& p = std::get<QgemmPlan>(shaped);
            // Where K is split over several passes, two buffers only (see the K steps below).
            if (p.buffers > 2 && p.pk > 1 && p.m_passes * p.n_passes * prob.groups > 1) {
              ++out.pruned[Prune::kReduceWait];
              continue;
            }
            if (!seen.insert({p.m_passes, p.n_passes, p.buffers, p.stationary}).second) {
              ++out.pruned[Prune::kDuplicate];
              continue;
            }
            const double bound = passes_lower_bound(prob, p, m);
            passes.push_back({std::move(p), bound, order});
          }
        }
      }
    }
  }
  std::stable_sort(passes.begin(), passes.end(),
                   [](const Passes& x, const Passes& y) { return x.bound < y.bound; });
  std::uint64_t best_order = 0;
  // A candidate whose bound is above the best estimate cannot win; on a tie only an earlier one can.
  // A tuner of the short list prices its candidates itself afterwards (windows): it gets them all.
  const bool prune = complete || !keep_all;
  auto beaten = [&](double bound, std::uint64_t at) {
    return prune && out.best &&
           (bound > out.best->estimated_cycles || (bound == out.best->estimated_cycles && at > best_order));
  };
  const std::uint64_t words = lm_words(m), t = prob.w_trits_per_byte;
  const std::uint64_t kt_unit = t > 0 ? std::lcm(words, t) : words;
  for (std::size_t i = 0; i < passes.size(); ++i) {
    const Passes& pc = passes[i];
    if (prune && out.best && pc.bound > out.best->estimated_cycles) {
      // Every later pass count's bound is at least this one's: none of their step counts can win.
      out.pruned[Prune::kBound] += passes.size() - i;
      break;
    }
    if (beaten(pc.bound, pc.order + 1)) {
      ++out.pruned[Prune::kBound];
      continue;
    }
    // Every distinct K step of these passes, from the largest the LM allows down to one LM word.
    struct Step {
      QgemmPlan plan;
      double bound;
      std::uint64_t order;
    };
    std::vector<Step> steps;
    const std::uint64_t kk = timing::ceil_div(prob.k, pc.plan.pk);
    std::set<std::uint64_t> kts;
    std::uint64_t at = pc.order;
    std::vector<std::uint64_t> wanted;  // K in at least this many steps
    // Where K is split over several passes, C goes out in pieces over the next pass's steps, one
    // per step, and each piece's store waits for the pass's reduce while holding DRAM's queue: the
    // estimate does not price that wait, so more, shorter steps look cheap and are not (die 1024³
    // with K over MAB and PE, 4×4 passes: K in 1 step of 16 estimated 79,452 cycles and simulated
    // 78,464; 8 steps of 2 estimated 79,004 and simulated 130,318). Such passes take K in the fewest
    // steps the LM allows, which keeps C in one piece, and two buffers (three, pruned where the pass
    // counts are made, make the steps smaller: the same case in 2 steps of 8 with three buffers
    // estimated 78,940 and simulated 82,000).
    const bool pieces_wait_on_reduce =
        pc.plan.pk > 1 && pc.plan.m_passes * pc.plan.n_passes * prob.groups > 1;
    if (pieces_wait_on_reduce)
      wanted = {1};
    else if (complete)
      for (std::uint64_t kt = pc.plan.kt; kt >= kt_unit; kt -= kt_unit)
        wanted.push_back(timing::ceil_div(kk, kt));
    else
      wanted = {1, 2, 4};
    for (const std::uint64_t want : wanted) {
      ++at;
      Tiling tiling = pc.plan.tiling;
      tiling.min_steps = want;
      auto shaped = try_shape_plan(prob, m, pc.plan.assignment, tiling);
      if (auto* r = std::get_if<Rejection>(&shaped)) {
        failed(r->reason, r->message, at);
        continue;
      }
      QgemmPlan& p = std::get<QgemmPlan>(shaped);
      if (!kts.insert(p.kt).second) {
        ++out.pruned[Prune::kDuplicate];
        continue;
      }
      const double bound = estimate_lower_bound(prob, p, m);
      steps.push_back({std::move(p), bound, at});
    }
    std::stable_sort(steps.begin(), steps.end(),
                     [](const Step& x, const Step& y) { return x.bound < y.bound; });
    for (Step& s : steps) {
      if (beaten(s.bound, s.order)) {
        ++out.pruned[Prune::kBound];
        continue;
      }
      if (auto r = estimate_plan(prob, s.plan, m)) {
        failed(r->reason, r->message, s.order);
        continue;
      }
      if (!out.best || s.plan.estimated_cycles < out.best->estimated_cycles ||
          (s.plan.estimated_cycles == out.best->estimated_cycles && s.order < best_order)) {
        out.best = s.plan;
        best_order = s.order;
      }
      if (keep_all) out.estimated.push_back({std::move(s.plan), s.order});
    }
  }
  if (keep_all)
    std::sort(out.estimated.begin(), out.estimated.end(), [](const SearchedPlan& x, const SearchedPlan& y) {
      return std::tie(x.plan.estimated_cycles, x.order) < std::tie(y.plan.estimated_cycles, y.order);
    });
  out.enumerated = out.estimated.size();
  for (const auto& [reason, count] : out.pruned) out.enumerated += count;
  return out;
}

QgemmPlan default_plan(const QgemmProblem& prob, const machine::MachineConfig& m, const Assignment& fixed,
                       TilingRange range) {
  PlanSearch s = search_plans(prob, m, fixed, false, range);
  if (!s.best)
    throw QgemmError("no plan fits this machine: " +
                     (s.error.empty() ? "no assignment of levels works" : s.error));
  return *std::move(s.best);
}

}  // namespace treesim::kernels
