// The default planner's search against an exhaustive enumeration of its space: every plan's lower
// bounds stay under its estimate, and the default plan is the best there is.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <optional>
#include <set>
#include <tuple>
#include <variant>

#include "kernels/qgemm/qgemm.h"
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
// none; or the root-most level with a composite fan-out shared by M and N as u_m × u_n with both
// above 1; or one level taking part of its fan-out, a divisor above 1, along M or N) and tilings can
// make — C's passes 1, 2, 3 (not where K is split) or 4 times the LM's, split 0, 1, ... times more;
// no operand, B or A kept over the passes; K in every step count from 1 to all of it (in the fewest
// where K is split over several passes) — estimated, in the default planner's enumeration order,
// each distinct plan once.
//
// The assignments come in parts, enumerated in this order: whole levels (kWhole), the shared level
// (kShared), then part of level 0, of level 1, ... (kPartial at `level`).
enum class Part { kWhole, kShared, kPartial };
struct Assignments {
  Part part = Part::kWhole;
  std::size_t level = 0;  // kPartial: the level taking part of its fan-out
};

// The special level of each run of the enumeration: (level, M's units, N's units), levels.size()
// for none.
std::vector<std::tuple<std::size_t, std::uint64_t, std::uint64_t>> specials(const machine::MachineConfig& m,
                                                                            Assignments which) {
  std::vector<std::tuple<std::size_t, std::uint64_t, std::uint64_t>> out;
  if (which.part == Part::kWhole) out.push_back({m.levels.size(), 0, 0});
  for (std::size_t l = 0; l < m.levels.size() && which.part == Part::kShared; ++l) {
    const std::uint64_t f = m.levels[l].fanout;
    for (std::uint64_t um = 2; um < f; ++um)
      if (f % um == 0 && f / um > 1) out.push_back({l, um, f / um});
    if (!out.empty()) break;  // the root-most grid only
  }
  if (which.part == Part::kPartial) {
    const std::uint64_t f = m.levels[which.level].fanout;
    for (std::uint64_t units = 2; units * 2 <= f; ++units)
      if (f % units == 0) out.push_back({which.level, units, 0}), out.push_back({which.level, 0, units});
  }
  return out;
}

std::vector<QgemmPlan> every_plan(const QgemmProblem& p, const machine::MachineConfig& m,
                                  std::vector<Stationary> kept_operands = {Stationary::kNone, Stationary::kB,
                                                                           Stationary::kA},
                                  std::vector<Assignments> parts = {}) {
  if (parts.empty()) {
    parts = {{Part::kWhole}, {Part::kShared}};
    for (std::size_t l = 0; l < m.levels.size(); ++l) parts.push_back({Part::kPartial, l});
  }
  std::vector<QgemmPlan> plans;
  std::uint64_t combos = 1;
  for (std::size_t l = 0; l < m.levels.size(); ++l) combos *= 4;
  std::vector<std::tuple<std::size_t, std::uint64_t, std::uint64_t>> runs;
  for (Assignments which : parts)
    for (auto run : specials(m, which)) runs.push_back(run);
  for (auto [special, um, un] : runs)
    for (std::uint64_t code = 0; code < combos; ++code) {
      Assignment a;
      std::uint64_t c = code;
      bool one_unit = false;
      for (std::size_t l = 0; l < m.levels.size(); ++l, c /= 4) {
        std::vector<Assignment::Use>* lists[] = {nullptr, &a.m, &a.n, &a.k};
        one_unit = one_unit || (c % 4 != 0 && (m.levels[l].fanout == 1 || l == special));
        if (l == special) {
          if (um) a.m.push_back({l, um});
          if (un) a.n.push_back({l, un});
        } else if (lists[c % 4])
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
                // (qgemm_search.cpp).
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
  Assignments part;                     // ExhaustiveSearch: which of the assignments
  bool partial_levels = false;          // LowerBounds: those taking part of a level (else the others)
};

std::string part_name(const MachineShape& c) {
  if (c.partial_levels) return "_part_of_a_level";
  if (c.part.part == Part::kWhole) return "";
  if (c.part.part == Part::kShared) return "_shared";
  return fmt::format("_part_of_{}", config(c.machine).levels[c.part.level].name);
}

void PrintTo(const MachineShape& c, std::ostream* os) {
  *os << c.machine << " " << c.m << "×" << c.n << "×" << c.k << " kept " << stationary_name(c.kept)
      << part_name(c);
}

std::vector<MachineShape> cases(
    std::initializer_list<const char*> machines,
    std::initializer_list<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t>> shapes,
    std::initializer_list<Stationary> kept = {Stationary::kNone}) {
  std::vector<MachineShape> out;
  for (const char* m : machines)
    for (auto [mm, nn, kk] : shapes)
      for (Stationary s : kept) out.push_back({m, mm, nn, kk, s, {}, false});
  return out;
}

std::string case_name(const ::testing::TestParamInfo<MachineShape>& info) {
  std::string name = fmt::format("{}_{}x{}x{}_{}{}", info.param.machine, info.param.m, info.param.n,
                                 info.param.k, stationary_name(info.param.kept), part_name(info.param));
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
  std::vector<Assignments> parts = {{Part::kWhole}, {Part::kShared}};
  if (c.partial_levels) {
    parts.clear();
    for (std::size_t l = 0; l < m.levels.size(); ++l) parts.push_back({Part::kPartial, l});
  }
  for (const QgemmPlan& plan : every_plan(p, m, {c.kept}, parts)) {
    EXPECT_LE(passes_lower_bound(p, plan, m), estimate_lower_bound(p, plan, m)) << describe(plan, m);
    EXPECT_LE(estimate_lower_bound(p, plan, m), plan.estimated_cycles) << describe(plan, m);
  }
}

// With part of a level, one shape (a board 256³ enumerates 6 times as many such plans).
INSTANTIATE_TEST_SUITE_P(QgemmPlan, LowerBounds, ::testing::ValuesIn([] {
                           auto out = cases({"mini", "mncore-die", "mncore-board"},
                                            {{37, 50, 129}, {256, 256, 256}, {1024, 64, 300}},
                                            {Stationary::kNone, Stationary::kB, Stationary::kA});
                           for (MachineShape c :
                                cases({"mini", "mncore-die", "mncore-board"}, {{37, 50, 129}},
                                      {Stationary::kNone, Stationary::kB, Stationary::kA}))
                             c.partial_levels = true, out.push_back(c);
                           return out;
                         }()),
                         case_name);

class ExhaustiveSearch : public ::testing::TestWithParam<MachineShape> {};

// Which part of the assignments a plan's is, as an index in enumeration order.
std::size_t part_index(const Assignment& a, const machine::MachineConfig& m) {
  for (const auto& u : a.m)
    if (units_at(a.n, u.level)) return 1;
  for (const auto* list : {&a.m, &a.n})
    for (const auto& u : *list)
      if (u.size < m.levels[u.level].fanout) return 2 + u.level;
  return 0;
}

// One test per part of the assignments (a sanitizer build gives a test 120 s): the default plan is
// the best of its own part, no worse than an earlier part's best and strictly better than a later
// one's (the enumeration takes the earlier on ties).
TEST_P(ExhaustiveSearch, DefaultPlanIsItsBest) {
  const MachineShape& c = GetParam();
  machine::MachineConfig m = config(c.machine);
  QgemmProblem p = search_problem(c.m, c.n, c.k);
  const QgemmPlan chosen = default_plan(p, m);
  const std::size_t chosen_part = part_index(chosen.assignment, m);
  const std::size_t part = c.part.part == Part::kWhole    ? 0
                           : c.part.part == Part::kShared ? 1
                                                          : 2 + c.part.level;
  std::optional<QgemmPlan> best;
  for (const QgemmPlan& plan :
       every_plan(p, m, {Stationary::kNone, Stationary::kB, Stationary::kA}, {c.part}))
    if (!best || plan.estimated_cycles < best->estimated_cycles) best = plan;
  if (!best) {
    EXPECT_NE(chosen_part, part);  // no plan of this part fits
  } else if (chosen_part == part) {
    EXPECT_EQ(describe(chosen, m), describe(*best, m));
    EXPECT_EQ(chosen.estimated_cycles, best->estimated_cycles);
  } else if (chosen_part > part) {
    EXPECT_LT(chosen.estimated_cycles, best->estimated_cycles) << describe(*best, m);
  } else {
    EXPECT_LE(chosen.estimated_cycles, best->estimated_cycles) << describe(*best, m);
  }
}

// The parts of each machine's assignments: whole levels, the shared level, and part of each level
// whose fan-out has a divisor above 1 (on the board, for the two small shapes: its 256³ takes 8 s
// per level without a sanitizer).
std::vector<MachineShape> exhaustive_cases() {
  std::vector<MachineShape> out;
  for (MachineShape c :
       cases({"mini", "mncore-board"}, {{37, 50, 129}, {256, 256, 256}, {1000, 3, 77}, {2048, 512, 64}})) {
    const machine::MachineConfig m = config(c.machine);
    std::vector<Assignments> parts = {{Part::kWhole}, {Part::kShared}};
    const bool small = c.m * c.n * c.k < 256 * 256 * 256;
    for (std::size_t l = 0; l < m.levels.size(); ++l)
      if (!specials(m, {Part::kPartial, l}).empty() && (small || m.pe_count() < 1024))
        parts.push_back({Part::kPartial, l});
    for (Assignments part : parts) c.part = part, out.push_back(c);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(QgemmPlan, ExhaustiveSearch, ::testing::ValuesIn(exhaustive_cases()), case_name);

}  // namespace
}  // namespace treesim::kernels
