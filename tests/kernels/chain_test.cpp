// The chain (MLP) planner: its shortest path equals a brute-force search over the same candidates
// and conversions, and its program chains the layers' tensors.
#include "kernels/chain/chain.h"
#include "kernels/chain/chain_lm.h"

#include <gtest/gtest.h>

#include "sim/machine/machine_file.h"
#include "tests/configs.h"
#include "tests/test_support.h"

namespace treesim::kernels {
namespace {

using testing::mini;

GemmChainSpec mlp(std::uint64_t m, std::vector<std::uint64_t> widths, std::size_t per_layer) {
  GemmChainSpec s;
  s.m = m, s.widths = std::move(widths), s.candidates_per_layer = per_layer;
  return s;
}

plan::ChainChoice brute_force(const GemmChainPlan& p) {
  std::vector<std::vector<double>> costs;
  for (const auto& layer : p.candidates) {
    auto& c = costs.emplace_back();
    for (const auto& cand : layer) c.push_back(cand.plan.estimated_cycles);
  }
  return plan::brute_force_chain(
      costs, [&](std::size_t i, std::size_t a, std::size_t b) { return p.conversion[i][a][b]; });
}

TEST(GemmChain, ThreeLayerMlpPlanEqualsBruteForce) {
  const machine::MachineConfig m = mini();
  for (const GemmChainSpec& spec :
       {mlp(32, {48, 64, 64, 16}, 5), mlp(8, {128, 32, 96, 8}, 6), mlp(64, {16, 16, 16, 16}, 4)}) {
    Result<GemmChainPlan> p = plan_gemm_chain(spec, m);
    ASSERT_TRUE(p.ok()) << p.errors().front().message();
    ASSERT_EQ(p->candidates.size(), 3u);
    const plan::ChainChoice brute = brute_force(p.value());
    EXPECT_EQ(p->best.total, brute.total);
    EXPECT_LE(p->best.total, p->independent.total);
  }
}

TEST(GemmChain, CandidatesOfALayerHaveDistinctLayouts) {
  Result<GemmChainPlan> p = plan_gemm_chain(mlp(32, {48, 64, 64, 16}, 5), mini());
  ASSERT_TRUE(p.ok());
  for (const auto& layer : p->candidates)
    for (std::size_t a = 0; a < layer.size(); ++a)
      for (std::size_t b = a + 1; b < layer.size(); ++b)
        EXPECT_FALSE(layer[a].resident_in == layer[b].resident_in &&
                     layer[a].resident_out == layer[b].resident_out);
}

TEST(GemmChain, ProgramChainsTheLayersTensors) {
  const GemmChainSpec spec = mlp(16, {24, 40, 32}, 2);
  const machine::MachineConfig m = mini();
  std::vector<QgemmPlan> plans{default_plan(chain_layer_problem(spec, 0), m),
                               default_plan(chain_layer_problem(spec, 1), m)};
  const program::Program prog = build_chain_program(chain_problems(spec), chain_lm(chain_problems(spec), plans, m, /*via_dram=*/true), m);
  for (const char* name : {"X0", "W0", "bias0", "X1", "W1", "bias1", "X2"})
    EXPECT_NE(prog.find_tensor(name), nullptr) << name;
  EXPECT_EQ(prog.find_tensor("A"), nullptr);
  EXPECT_EQ(prog.find_tensor("X1")->shape, (std::vector<std::uint64_t>{16, 40}));
}

}  // namespace
}  // namespace treesim::kernels
