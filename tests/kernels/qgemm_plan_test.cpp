// Planning is pure: plans fit the LM, their layouts bind, and bad assignments are refused.
#include "kernels/qgemm/qgemm.h"

#include <gtest/gtest.h>

#include <optional>

#include "kernels/qgemm/verify.h"
#include "sim/layout/bound_layout.h"
#include "sim/layout/parse.h"
#include "sim/machine/machine_file.h"
#include "tests/test_support.h"

namespace treesim::kernels {
namespace {

machine::MachineConfig load(const std::string& name) {
  return machine::load_machine_file(testing::source_path("configs/" + name + ".yaml"));
}

QgemmProblem problem(std::uint64_t m, std::uint64_t n, std::uint64_t k) {
  QgemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.has_bias = true;
  return p;
}

void expect_binds(const std::string& text, std::vector<std::uint64_t> shape,
                  const machine::MachineConfig& m) {
  auto l = layout::parse_layout_or_throw(text, m);
  EXPECT_NO_THROW(layout::bind_or_throw(l, shape, m, 1)) << text;
}

TEST(QgemmPlan, DefaultPlanFitsTheLmAndCoversTheProblem) {
  for (const char* name : {"mini", "mncore-board"}) {
    machine::MachineConfig m = load(name);
    for (auto [mm, nn, kk] : {std::tuple{37, 50, 129}, {256, 256, 256}, {1, 1, 1}, {1000, 3, 77}}) {
      QgemmProblem p = problem(mm, nn, kk);
      QgemmPlan plan = default_plan(p, m);
      EXPECT_LE(plan.lm_bytes, m.lm_bytes()) << name;
      EXPECT_GE(plan.pm * plan.tm * plan.m_passes, p.m);
      EXPECT_GE(plan.pn * plan.tn * plan.n_passes, p.n);
      EXPECT_GE(plan.pk * plan.kt * plan.steps, p.k);
      EXPECT_GT(plan.estimated_cycles, 0);
    }
  }
}

TEST(QgemmPlan, TileLayoutsBindOnTheMachine) {
  machine::MachineConfig m = load("mncore-board");
  QgemmProblem p = problem(37, 50, 129);
  QgemmPlan plan = default_plan(p, m);
  const std::uint64_t bm = std::min(p.m, plan.pm * plan.tm), bn = std::min(p.n, plan.pn * plan.tn);
  const std::uint64_t bk = std::min(p.k, plan.pk * plan.kt);
  expect_binds(tile_layout_a(plan, m, bm, bk), {bm, bk}, m);
  expect_binds(tile_layout_b(plan, m, bk, bn), {bk, bn}, m);
  expect_binds(tile_layout_c(plan, m, bm, bn), {bm, bn}, m);
}

TEST(QgemmPlan, LargeTilesAreSplitIntoPasses) {
  // 64×64 outputs per PE on the mini machine would not leave room in a 64 KiB LM for K steps.
  machine::MachineConfig m = load("mini");
  QgemmPlan plan = make_plan(problem(4096, 4096, 64), m, Assignment{{{1, 2}, {3, 4}}, {{2, 4}}, {}});
  EXPECT_GT(plan.m_passes * plan.n_passes, 1u);
  EXPECT_LE(plan.lm_bytes, m.lm_bytes());
}

TEST(QgemmPlan, KSplitReducesAboveItsLevels) {
  machine::MachineConfig m = load("mini");
  QgemmPlan plan = make_plan(problem(37, 50, 129), m, Assignment{{{1, 2}, {2, 4}}, {}, {{3, 4}}});
  EXPECT_EQ(plan.pk, 4u);
  EXPECT_EQ(plan.reduce_level, "MAB");
  EXPECT_NE(tile_layout_c(plan, m, 37, 50).find("1_PE"), std::string::npos);
}

TEST(QgemmPlan, KSplitOverAnUpperLevelIsRefused) {
  machine::MachineConfig m = load("mini");
  try {
    make_plan(problem(37, 50, 129), m, Assignment{{{3, 4}}, {}, {{1, 2}}});
    FAIL();
  } catch (const QgemmError& e) {
    EXPECT_NE(std::string(e.what()).find("K is split over L1B, but a K split must take the lowest levels"),
              std::string::npos)
        << e.what();
  }
}

TEST(QgemmPlan, PartialKLevelIsRefused) {
  machine::MachineConfig m = load("mini");
  EXPECT_THROW(make_plan(problem(37, 50, 129), m, Assignment{{}, {}, {{3, 2}}}), QgemmError);
}

TEST(QgemmPlan, LayoutsFixTheAssignment) {
  machine::MachineConfig m = load("mini");
  QgemmProblem p = problem(37, 50, 129);
  Assignment a = assignment_from_layouts(p, m, "(37,129)/((2_L1B, 4_MAB, 5:33), (4_PE, 33:1))", "", "");
  ASSERT_EQ(a.m.size(), 2u);
  EXPECT_EQ(a.m[0].level, 1u);
  EXPECT_EQ(a.m[1].size, 4u);
  ASSERT_EQ(a.k.size(), 1u);
  EXPECT_EQ(a.k[0].level, 3u);
  EXPECT_TRUE(a.fixed_m && a.fixed_k && !a.fixed_n);
}

TEST(QgemmPlan, DisagreeingLayoutsAreRefused) {
  machine::MachineConfig m = load("mini");
  QgemmProblem p = problem(40, 50, 129);
  try {
    assignment_from_layouts(p, m, "((2_L1B, 4_MAB, 5:129), (129:1))", "", "((2_L1B, 20:50), (50:1))");
    FAIL();
  } catch (const QgemmError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--layout-a axis 0 distributes M over (2_L1B, 4_MAB) but --layout-c axis 0 over (2_L1B)");
  }
}

TEST(QgemmPlan, OneLevelForTwoDimensionsIsRefused) {
  machine::MachineConfig m = load("mini");
  QgemmProblem p = problem(40, 48, 129);
  EXPECT_THROW(assignment_from_layouts(p, m, "((4_PE, 10:129), (129:1))", "((129:12), (4_PE, 12:1))", ""),
               QgemmError);
}

TEST(QgemmPlan, WholeLayoutsReproduceThePlan) {
  machine::MachineConfig m = load("mncore-board");
  QgemmProblem p = problem(300, 200, 500);
  QgemmPlan plan = default_plan(p, m);
  Assignment again = assignment_from_layouts(p, m, whole_layout_a(p, plan, m), whole_layout_b(p, plan, m),
                                             whole_layout_c(p, plan, m));
  EXPECT_EQ(again.m, plan.assignment.m);
  EXPECT_EQ(again.n, plan.assignment.n);
  EXPECT_EQ(again.k, plan.assignment.k);
}

// Every plan an exhaustive search over level assignments (no level fixed) can make, in the
// default planner's enumeration order; plans that cannot work are left out.
std::vector<QgemmPlan> every_plan(const QgemmProblem& p, const machine::MachineConfig& m) {
  std::vector<QgemmPlan> plans;
  std::uint64_t combos = 1;
  for (std::size_t l = 0; l < m.levels.size(); ++l) combos *= 4;
  for (std::uint64_t code = 0; code < combos; ++code) {
    Assignment a;
    std::uint64_t c = code;
    for (std::size_t l = 0; l < m.levels.size(); ++l, c /= 4) {
      std::vector<Assignment::Use>* lists[] = {nullptr, &a.m, &a.n, &a.k};
      if (lists[c % 4]) lists[c % 4]->push_back({l, m.levels[l].fanout});
    }
    auto units = [](const std::vector<Assignment::Use>& uses) {
      std::uint64_t n = 1;
      for (const auto& u : uses) n *= u.size;
      return n;
    };
    if (units(a.m) > p.m * 2 || units(a.n) > p.n * 2 || units(a.k) > p.k) continue;
    for (auto [extra, min_steps] :
         {std::pair<std::uint64_t, std::uint64_t>{1, 1}, {2, 1}, {4, 1}, {1, 2}, {1, 4}, {2, 2}, {2, 4}}) {
      try {
        plans.push_back(make_plan(p, m, a, extra, min_steps));
      } catch (const std::exception&) {
      }
    }
  }
  return plans;
}

TEST(QgemmPlan, EstimateLowerBoundNeverExceedsTheEstimate) {
  for (const char* name : {"mini", "mncore-die", "mncore-board"}) {
    machine::MachineConfig m = load(name);
    for (auto [mm, nn, kk] : {std::tuple{37, 50, 129}, {256, 256, 256}, {1024, 64, 2048}}) {
      const QgemmProblem p = problem(mm, nn, kk);
      for (const QgemmPlan& plan : every_plan(p, m))
        EXPECT_LE(estimate_lower_bound(p, plan, m), plan.estimated_cycles)
            << name << " " << describe(plan, m);
    }
  }
}

TEST(QgemmPlan, DefaultPlanIsTheExhaustiveSearchsBest) {
  for (const char* name : {"mini", "mncore-board"}) {
    machine::MachineConfig m = load(name);
    for (auto [mm, nn, kk] : {std::tuple{37, 50, 129}, {256, 256, 256}, {1000, 3, 77}, {2048, 2048, 2048}}) {
      QgemmProblem p = problem(mm, nn, kk);
      std::optional<QgemmPlan> best;
      for (const QgemmPlan& plan : every_plan(p, m))
        if (!best || plan.estimated_cycles < best->estimated_cycles) best = plan;
      ASSERT_TRUE(best.has_value());
      QgemmPlan chosen = default_plan(p, m);
      EXPECT_EQ(describe(chosen, m), describe(*best, m)) << name;
      EXPECT_EQ(chosen.estimated_cycles, best->estimated_cycles) << name;
    }
  }
}

TEST(QgemmVerify, FirstMismatchIsNamedByRowAndColumn) {
  report::VerifyResult v = compare_outputs({1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 0, 7}, 3);
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.mismatches, 2u);
  EXPECT_EQ(v.first_mismatch, "C[1,1]: got 5, expected 0");
}

TEST(QgemmVerify, EqualOutputsAreOk) {
  report::VerifyResult v = compare_outputs({1, -2}, {1, -2}, 2);
  EXPECT_TRUE(v.ok);
  EXPECT_EQ(v.mismatches, 0u);
}

}  // namespace
}  // namespace treesim::kernels
