// The default planner's search against an exhaustive enumeration of its space: every plan's lower
// bounds stay under its estimate, and the default plan is the best there is.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <optional>
#include <set>
#include <tuple>
#include <variant>

#include "kernels/gemm/gemm.h"
#include "tests/configs.h"

namespace treesim::kernels {
namespace {

using testing::config;

QgemmProblem search_problem(std::uint64_t m, std::uint64_t n, std::uint64_t k) {
  QgemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.has_bias = true;
  return p;
}

// Every plan an exhaustive search over level assignments (no level fixed; each level to M, N, K or
// none, or the root-most level with a composite fan-out shared by M and N as u_m × u_n with both
// above 1) and tilings can make —
// C's passes 1, 2, 3 (not where K is split) or 4 times the LM's, split 0, 1, ... times more; no operand, B or
// A kept over the passes; K in every step count from 1 to all of it (in the fewest where K is split over
// several passes) — estimated, in the default planner's enumeration order, each distinct plan once.
// Which assignments: all, or those with (or without) the shared level.
enum class Sharing { kAll, kUnshared, kShared };

std::vector<QgemmPlan> every_plan(const QgemmProblem& p, const machine::MachineConfig& m,
                                  std::vector<Stationary> kept_operands = {Stationary::kNone, Stationary::kB,
                                                                           Stationary::kA},
                                  Sharing sharing = Sharing::kAll) {
  std::vector<QgemmPlan> plans;
  std::uint64_t combos = 1;
  for (std::size_t l = 0; l < m.levels.size(); ++l) combos *= 4;
  std::vector<std::pair<std::size_t, std::uint64_t>> shares;  // (level, u_m); levels.size(): none
  if (sharing != Sharing::kShared) shares.push_back({m.levels.size(), 0});
  for (std::size_t l = 0; l < m.levels.size() && sharing != Sharing::kUnshared; ++l) {
    for (std::uint64_t um = 2; um < m.levels[l].fanout; ++um)
      if (m.levels[l].fanout % um == 0 && m.levels[l].fanout / um > 1) shares.push_back({l, um});
    if (!shares.empty() && shares.back().first == l) break;  // the root-most grid only
  }
  for (auto [shared, um] : shares)
    for (std::uint64_t code = 0; code < combos; ++code) {
      Assignment a;
      std::uint64_t c = code;
      bool one_unit = false;
      for (std::size_t l = 0; l < m.levels.size(); ++l, c /= 4) {
        std::vector<Assignment::Use>* lists[] = {nullptr, &a.m, &a.n, &a.k};
        one_unit = one_unit || (c % 4 != 0 && (m.levels[l].fanout == 1 || l == shared));
        if (l == shared)
          a.m.push_back({l, um}), a.n.push_back({l, m.levels[l].fanout / um});
        else if (lists[c % 4])
          lists[c % 4]->push_back({l, m.levels[l].fanout});
      }
      auto units = [](const std::vector<Assignment::Use>& uses) {
        std::uint64_t n = 1;
        for (const auto& u : uses) n *= u.size;
        return n;
      };
      if (one_unit || units(a.m) > p.m * 2 || units(a.n) > p.n * 2 || units(a.k) > p.k) continue;
      std::set<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t, Stationary>> seen;
      for (Stationary kept : kept_operands)
        for (std::uint64_t buffers : {2, 3})
          for (std::uint64_t extra : {1, 2, 3, 4})
            for (std::uint64_t splits = 0; splits < 40 && (extra != 3 || a.k.empty()); ++splits)
              for (std::uint64_t steps = 1; steps <= p.k; ++steps) {
                Tiling tiling{extra, steps, splits, buffers};
                tiling.stationary = kept;
                auto shaped = try_shape_plan(p, m, a, tiling);
                if (const auto* r = std::get_if<Rejection>(&shaped)) {
                  if (steps == 1 && r->reason != Prune::kLmOverflow) break;  // no K step mends it
                  continue;
                }
                QgemmPlan& plan = std::get<QgemmPlan>(shaped);
                // K split over several passes: K in the fewest steps with two buffers only
                // (kernels/gemm/gemm_search.cpp).
                if (plan.pk > 1 && plan.m_passes * plan.n_passes > 1 && (steps > 1 || buffers > 2)) continue;
                if (!seen.insert({plan.m_passes, plan.n_passes, plan.kt, plan.buffers, plan.stationary})
                         .second)
                  continue;
                if (!estimate_plan(p, plan, m)) plans.push_back(plan);
              }
    }
  return plans;
}

// A machine and a GEMM shape: the exhaustive enumerations below take one test each (each
// enumerates thousands of plans, and a sanitizer build gives a test 120 s).
struct MachineShape {
  const char* machine;
  std::uint64_t m, n, k;
  Stationary kept = Stationary::kNone;  // LowerBounds: the plans that keep this operand
  bool shared_half = false;             // ExhaustiveSearch: the assignments with the shared level
};

void PrintTo(const MachineShape& c, std::ostream* os) {
  *os << c.machine << " " << c.m << "×" << c.n << "×" << c.k << " kept " << stationary_name(c.kept)
      << (c.shared_half ? " shared" : "");
}

std::vector<MachineShape> cases(
    std::initializer_list<const char*> machines,
    std::initializer_list<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>> shapes,
    std::initializer_list<Stationary> kept = {Stationary::kNone}) {
  std::vector<MachineShape> out;
  for (const char* m : machines)
    for (auto [mm, nn, kk] : shapes)
      for (Stationary s : kept) out.push_back({m, mm, nn, kk, s});
  return out;
}

std::string case_name(const ::testing::TestParamInfo<MachineShape>& info) {
  std::string name =
      fmt::format("{}_{}x{}x{}_{}{}", info.param.machine, info.param.m, info.param.n, info.param.k,
                  stationary_name(info.param.kept), info.param.shared_half ? "_shared" : "");
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

// Every plan of three shapes, on each machine, keeping no operand, B or A.
class LowerBounds : public ::testing::TestWithParam<MachineShape> {};

TEST_P(LowerBounds, NeverExceedTheEstimate) {
  const MachineShape& c = GetParam();
  machine::MachineConfig m = config(c.machine);
  const QgemmProblem p = search_problem(c.m, c.n, c.k);
  for (const QgemmPlan& plan : every_plan(p, m, {c.kept})) {
    EXPECT_LE(passes_lower_bound(p, plan, m), estimate_lower_bound(p, plan, m)) << describe(plan, m);
    EXPECT_LE(estimate_lower_bound(p, plan, m), plan.estimated_cycles) << describe(plan, m);
  }
}

INSTANTIATE_TEST_SUITE_P(QgemmPlan, LowerBounds,
                         ::testing::ValuesIn(cases({"mini", "mncore-die", "mncore-board"},
                                                   {{37, 50, 129}, {256, 256, 256}, {1024, 64, 300}},
                                                   {Stationary::kNone, Stationary::kB, Stationary::kA})),
                         case_name);

class ExhaustiveSearch : public ::testing::TestWithParam<MachineShape> {};

// One test per half of the assignments (a sanitizer build gives a test 120 s): the default plan
// is the best of its own half, and no worse than the other's best (strictly better than the
// unshared half's, which the enumeration takes first on ties).
TEST_P(ExhaustiveSearch, DefaultPlanIsItsBest) {
  const MachineShape& c = GetParam();
  machine::MachineConfig m = config(c.machine);
  QgemmProblem p = search_problem(c.m, c.n, c.k);
  const QgemmPlan chosen = default_plan(p, m);
  bool chosen_shared = false;
  for (const auto& u : chosen.assignment.m)
    chosen_shared = chosen_shared || units_at(chosen.assignment.n, u.level);
  std::optional<QgemmPlan> best;
  for (const QgemmPlan& plan : every_plan(p, m, {Stationary::kNone, Stationary::kB, Stationary::kA},
                                          c.shared_half ? Sharing::kShared : Sharing::kUnshared))
    if (!best || plan.estimated_cycles < best->estimated_cycles) best = plan;
  ASSERT_TRUE(best.has_value());
  if (chosen_shared == c.shared_half) {
    EXPECT_EQ(describe(chosen, m), describe(*best, m));
    EXPECT_EQ(chosen.estimated_cycles, best->estimated_cycles);
  } else if (chosen_shared) {
    EXPECT_LT(chosen.estimated_cycles, best->estimated_cycles) << describe(*best, m);
  } else {
    EXPECT_LE(chosen.estimated_cycles, best->estimated_cycles) << describe(*best, m);
  }
}

INSTANTIATE_TEST_SUITE_P(QgemmPlan, ExhaustiveSearch, ::testing::ValuesIn([] {
                           std::vector<MachineShape> out;
                           for (MachineShape c :
                                cases({"mini", "mncore-board"},
                                      {{37, 50, 129}, {256, 256, 256}, {1000, 3, 77}, {2048, 512, 64}}))
                             for (bool shared : {false, true}) c.shared_half = shared, out.push_back(c);
                           return out;
                         }()),
                         case_name);

}  // namespace
}  // namespace treesim::kernels
