// The GEMM planners' search: every level assignment, pass count and K step count, pruned by bounds.
#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "kernels/gemm/gemm.h"
#include "kernels/gemm/gemm_estimate.h"

namespace treesim::kernels {
namespace {

// Every assignment of the free levels to M, N, K or none at full fan-out (with `unshared_levels`),
// in enumeration order; then, with `shared_levels`, those where the root-most level whose fan-out splits into
// a grid is shared by M and N (each split of its fan-out into u_m × u_n, both above 1), the others as before.
// Those with more units than elements are only counted.
std::vector<Assignment> assignments(const QgemmProblem& prob, const machine::MachineConfig& m,
                                    const Assignment& fixed, bool unshared_levels, bool shared_levels,
                                    std::uint64_t& too_many) {
  const std::size_t levels = m.levels.size();
  std::vector<bool> taken(levels, false);
  for (const auto* list : {&fixed.m, &fixed.n, &fixed.k})
    for (const auto& u : *list) taken[u.level] = true;
  std::vector<Assignment> out;
  std::uint64_t combos = 1;
  for (std::size_t l = 0; l < levels; ++l) combos *= 4;
  // shared: the level M and N share (levels = none) and M's units of it.
  auto enumerate = [&](std::size_t shared, std::uint64_t shared_m) {
    for (std::uint64_t code = 0; code < combos; ++code) {
      Assignment a = fixed;
      std::uint64_t c = code;
      bool skip = false;
      for (std::size_t l = 0; l < levels; ++l, c /= 4) {
        const int choice = static_cast<int>(c % 4);
        if (taken[l] || l == shared) {
          skip = skip || choice != 0;  // fixed (and shared) levels are enumerated once
          if (l == shared) {
            a.m.push_back({l, shared_m});
            a.n.push_back({l, m.levels[l].fanout / shared_m});
          }
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
  };
  if (unshared_levels) enumerate(levels, 1);
  if (!shared_levels || fixed.fixed_m || fixed.fixed_n) return out;
  // The root-most level that splits into a grid: its links carry the largest shares, which one
  // dimension alone leaves whole (each L2B's link on the board carries A or B whole). Sharing any
  // level too would search ten times the assignments on the board for plans no case of
  // bench/qgemm_roofline.sh picks.
  for (std::size_t l = 0; l < levels; ++l) {
    const std::uint64_t f = m.levels[l].fanout;
    bool grid = false;
    for (std::uint64_t um = 2; um * 2 <= f; ++um)
      if (f % um == 0) {
        grid = true;
        if (!taken[l]) enumerate(l, um);
      }
    if (grid) break;
  }
  return out;
}

// One pass count of one assignment: its plan with the fewest K steps (as shaped for the first
// assignment of its units: the levels are `assignment`'s), and the bound of every step count's plan.
struct Passes {
  const QgemmPlan* plan = nullptr;
  std::size_t assignment = 0;  // index into the candidates
  double bound = 0;
  std::uint64_t order = 0;
};

// Orders grow in enumeration order: an assignment's pass counts, then each one's step counts.
constexpr std::uint64_t kStepOrders = std::uint64_t{1} << 24;

}  // namespace

PlanSearch search_plans(const QgemmProblem& prob, const machine::MachineConfig& m, const Assignment& fixed,
                        bool keep_all, TilingRange range) {
  const bool complete = range != TilingRange::kShortList;
  PlanSearch out;
  std::uint64_t error_order = 0;
  auto failed = [&](Prune reason, const std::string& message, std::uint64_t order) {
    ++out.pruned[reason];
    if (order < error_order) return;
    out.error = message;
    error_order = order;
  };
  std::uint64_t too_many = 0;
  // Shared levels in kComplete only: they copy A over N's digit, which a short list's windowed A
  // loads pay for in conversions its estimate does not see (the Fashion CNN on mncore-board: 9.1
  // cycles per image without them, 13.7 with).
  const std::vector<Assignment> candidates =
      assignments(prob, m, fixed, range != TilingRange::kSharedOnly,
                  range == TilingRange::kComplete || range == TilingRange::kSharedOnly, too_many);
  if (too_many) out.pruned[Prune::kTooManyUnits] += too_many;
  // Past its own checks, an assignment's plans depend on its units along M, N and K alone
  // (check_assignment): assignments with the same units (a shared level's grids among them) are
  // shaped once per tiling; a plan takes each one's levels where it is estimated.
  using ShapeKey = std::tuple<std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t,
                              std::uint64_t, std::uint64_t, bool, Stationary>;
  std::map<ShapeKey, std::variant<QgemmPlan, Rejection>> shapes;
  auto shape = [&](const Assignment& a, const Tiling& t) -> const std::variant<QgemmPlan, Rejection>& {
    const ShapeKey key{units_of(a.m), units_of(a.n), units_of(a.k),       t.extra_m_passes, t.min_steps,
                       t.pass_splits, t.buffers,     t.charge_first_pass, t.stationary};
    auto it = shapes.find(key);
    if (it == shapes.end()) it = shapes.emplace(key, try_shape_plan(prob, m, a, t)).first;
    return it->second;
  };
  std::vector<std::string> reduce_levels(candidates.size());  // each candidate's (check_assignment)
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
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    const Assignment& a = candidates[c];
    auto checked = check_assignment(m, a);
    if (auto* r = std::get_if<Rejection>(&checked)) {  // no tiling mends it: once per kept operand
      for (std::size_t i = 0; i < stationary.size(); ++i) failed(r->reason, r->message, order += kStepOrders);
      continue;
    }
    reduce_levels[c] = std::get<std::string>(std::move(checked));
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
            const auto& shaped = shape(a, tiling);
            if (const auto* r = std::get_if<Rejection>(&shaped)) {
              if (r->reason == Prune::kNoFurtherSplit) {
                ++out.pruned[r->reason];
              } else {
                failed(r->reason, r->message, order);
                // What no pass count mends (a row that cannot fit) ends the assignment; a map that
                // overflows by its alignment gaps may fit with smaller tiles.
                hopeless = r->reason != Prune::kLmOverflow;
                if (!hopeless && splits < 64) continue;
              }
              break;
            }
            const QgemmPlan& p = std::get<QgemmPlan>(shaped);
            // Where K is split over several passes, two buffers only (see the K steps below).
            if (p.buffers > 2 && p.pk > 1 && p.m_passes * p.n_passes * prob.groups > 1) {
              ++out.pruned[Prune::kReduceWait];
              continue;
            }
            if (!seen.insert({p.m_passes, p.n_passes, p.buffers, p.stationary}).second) {
              ++out.pruned[Prune::kDuplicate];
              continue;
            }
            passes.push_back({&p, c, passes_lower_bound(prob, p, m), order});
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
    const QgemmPlan& shaped_passes = *pc.plan;
    const std::uint64_t kk = timing::ceil_div(prob.k, shaped_passes.pk);
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
        shaped_passes.pk > 1 && shaped_passes.m_passes * shaped_passes.n_passes * prob.groups > 1;
    if (pieces_wait_on_reduce)
      wanted = {1};
    else if (complete)
      for (std::uint64_t kt = shaped_passes.kt; kt >= kt_unit; kt -= kt_unit) {
        // Each step count once: K steps of nearby sizes need as many steps (the same plan).
        const std::uint64_t count = timing::ceil_div(kk, kt);
        if (wanted.empty() || wanted.back() != count) wanted.push_back(count);
      }
    else
      wanted = {1, 2, 4};
    for (const std::uint64_t want : wanted) {
      ++at;
      Tiling tiling = shaped_passes.tiling;
      tiling.min_steps = want;
      const auto& shaped = shape(candidates[pc.assignment], tiling);
      if (const auto* r = std::get_if<Rejection>(&shaped)) {
        failed(r->reason, r->message, at);
        continue;
      }
      if (!kts.insert(std::get<QgemmPlan>(shaped).kt).second) {
        ++out.pruned[Prune::kDuplicate];
        continue;
      }
      QgemmPlan p = std::get<QgemmPlan>(shaped);  // with this assignment's levels
      p.assignment = candidates[pc.assignment];
      p.reduce_level = reduce_levels[pc.assignment];
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
