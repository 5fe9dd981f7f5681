#include "sim/plan/chain_plan.h"

#include <gtest/gtest.h>

#include <random>

namespace treesim::plan {
namespace {

TEST(ChainPlan, ConversionCostOutweighsTheCheapestLayer) {
  // Layer 1's candidate 0 is cheaper alone, but converting to it from layer 0's only good candidate
  // costs more than the difference: the path takes candidate 1.
  const std::vector<std::vector<double>> costs{{10, 50}, {20, 25}, {5}};
  auto conversion = [](std::size_t layer, std::size_t from, std::size_t to) {
    if (layer == 0) return from == 0 && to == 0 ? 100.0 : 0.0;
    return 0.0;
  };
  const ChainChoice c = solve_chain(costs, conversion);
  EXPECT_EQ(c.candidate, (std::vector<std::size_t>{0, 1, 0}));
  EXPECT_EQ(c.total, 40);
  EXPECT_EQ(c.conversion, (std::vector<double>{0, 0}));
}

TEST(ChainPlan, OneLayerIsItsCheapestCandidate) {
  const ChainChoice c = solve_chain({{7, 3, 9}}, [](std::size_t, std::size_t, std::size_t) { return 1e9; });
  EXPECT_EQ(c.candidate, (std::vector<std::size_t>{1}));
  EXPECT_EQ(c.total, 3);
  EXPECT_TRUE(c.conversion.empty());
}

TEST(ChainPlan, EqualsBruteForceOnRandomThreeLayerChains) {
  std::mt19937_64 rng(17);
  std::uniform_int_distribution<int> size(1, 6), cost(0, 1000);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::vector<double>> costs(3);
    for (auto& layer : costs) {
      layer.resize(static_cast<std::size_t>(size(rng)));
      for (double& c : layer) c = cost(rng);
    }
    std::vector<std::vector<std::vector<double>>> conv(2);
    for (std::size_t i = 0; i < 2; ++i) {
      conv[i].assign(costs[i].size(), std::vector<double>(costs[i + 1].size()));
      for (auto& row : conv[i])
        for (double& c : row) c = cost(rng);
    }
    auto conversion = [&](std::size_t i, std::size_t a, std::size_t b) { return conv[i][a][b]; };
    const ChainChoice fast = solve_chain(costs, conversion), brute = brute_force_chain(costs, conversion);
    ASSERT_EQ(fast.total, brute.total) << "trial " << trial;
  }
}

TEST(ChainPlan, NoLayersIsRefused) {
  EXPECT_THROW(solve_chain({}, [](std::size_t, std::size_t, std::size_t) { return 0.0; }),
               std::invalid_argument);
  EXPECT_THROW(solve_chain({{1}, {}}, [](std::size_t, std::size_t, std::size_t) { return 0.0; }),
               std::invalid_argument);
}

}  // namespace
}  // namespace treesim::plan
