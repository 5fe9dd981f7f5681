// Tuning candidates of a GEMM: the estimate's ranking starts with the default planner's plan, and
// every enumerated candidate is either estimated or counted as pruned.
#include "kernels/gemm/gemm_tune.h"

#include <gtest/gtest.h>

#include "kernels/gemm/gemm.h"
#include "sim/machine/machine_file.h"
#include "sim/numeric/fixed_point.h"
#include "tests/configs.h"
#include "tests/test_support.h"

namespace treesim::kernels {
namespace {

using testing::config;

QgemmProblem problem(std::uint64_t m, std::uint64_t n, std::uint64_t k) {
  QgemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.has_bias = true;
  p.out.multipliers.assign(1, numeric::quantize_multiplier(0.001));
  return p;
}

Candidates candidates(const QgemmProblem& p, const machine::MachineConfig& m) {
  return gemm_candidates(p, m, {}, [](const QgemmPlan& q) {
    Plan plan;
    plan.estimated_cycles = q.estimated_cycles;
    plan.mapping = q;
    return plan;
  });
}

TEST(GemmTune, FirstByEstimateIsTheDefaultPlannersPlan) {
  const machine::MachineConfig m = config("mini");
  for (auto [mm, nn, kk] : {std::tuple{64, 64, 64}, {256, 16, 128}, {1, 96, 256}, {37, 50, 129}}) {
    const QgemmProblem p = problem(mm, nn, kk);
    const Candidates c = candidates(p, m);
    ASSERT_FALSE(c.ranked.empty());
    const QgemmPlan& first = std::any_cast<const QgemmPlan&>(c.ranked.front().plan.mapping);
    const QgemmPlan def = default_plan(p, m);
    EXPECT_EQ(first.assignment.m, def.assignment.m) << mm << "×" << nn << "×" << kk;
    EXPECT_EQ(first.assignment.n, def.assignment.n);
    EXPECT_EQ(first.assignment.k, def.assignment.k);
    EXPECT_EQ(first.tiling, def.tiling);
    EXPECT_EQ(first.estimated_cycles, def.estimated_cycles);
  }
}

TEST(GemmTune, RankedByEstimate) {
  const Candidates c = candidates(problem(128, 128, 128), config("mini"));
  for (std::size_t i = 1; i < c.ranked.size(); ++i)
    EXPECT_LE(c.ranked[i - 1].plan.estimated_cycles, c.ranked[i].plan.estimated_cycles);
}

TEST(GemmTune, EveryEnumeratedCandidateIsEstimatedOrPruned) {
  const Candidates c = candidates(problem(1, 8, 16), config("mini"));
  std::uint64_t pruned = 0;
  for (const auto& [reason, count] : c.pruned) pruned += count;
  EXPECT_EQ(c.ranked.size() + pruned, c.enumerated);
  // M = 1 over a split M level, and K over partial or upper levels, are pruned with their reason.
  bool too_many = false, k_not_lowest = false;
  for (const auto& [reason, count] : c.pruned) {
    too_many = too_many || (reason == prune_name(Prune::kTooManyUnits) && count > 0);
    k_not_lowest = k_not_lowest || (reason == prune_name(Prune::kKSplitNotLowest) && count > 0);
  }
  EXPECT_TRUE(too_many);
  EXPECT_TRUE(k_not_lowest);
}

TEST(GemmTune, ShapeRejectionIsAValueWithItsReason) {
  const machine::MachineConfig m = config("mini");
  Assignment a;
  a.k.push_back({0, m.levels[0].fanout});  // K on the top level only: not the lowest levels
  auto shaped = try_shape_plan(problem(64, 64, 64), m, a, Tiling{});
  ASSERT_TRUE(std::holds_alternative<Rejection>(shaped));
  EXPECT_EQ(std::get<Rejection>(shaped).reason, Prune::kKSplitNotLowest);
}

}  // namespace
}  // namespace treesim::kernels
