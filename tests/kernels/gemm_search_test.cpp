// The GEMM planners' search is complete over its tilings: a bigger or faster machine never gets a
// worse default plan (by the estimate the planner ranks by), and more LM is never slower.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "kernels/gemm/gemm.h"
#include "sim/numeric/fixed_point.h"
#include "tests/configs.h"

namespace treesim::kernels {
namespace {

using testing::config;

QgemmProblem problem(std::uint64_t m, std::uint64_t n, std::uint64_t k, std::uint64_t trits) {
  QgemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.has_bias = true;
  p.out.multipliers.assign(1, numeric::quantize_multiplier(0.001));
  if (trits > 0) {
    p.ternary = true;
    p.w_trits_per_byte = trits;
  }
  return p;
}

// A random machine on mini's four levels: fan-outs, memories and rates drawn per level.
machine::MachineConfig random_machine(std::mt19937_64& rng) {
  machine::MachineConfig m = config("mini");
  auto pick = [&](std::initializer_list<std::uint64_t> values) {
    return *(values.begin() + std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng));
  };
  for (std::size_t l = 1; l < m.levels.size(); ++l) m.levels[l].fanout = pick({1, 2, 4});
  for (auto& level : m.levels) {
    level.down_bytes_per_cycle = pick({8, 16, 32, 64});
    level.up_bytes_per_cycle = pick({8, 16, 32, 64});
  }
  m.levels.back().memory_bytes = pick({2048, 4096, 8192});
  m.dram.bytes_per_cycle = pick({8, 16, 32, 64});
  m.pe.mac.int8_macs_per_cycle = pick({4, 8, 16, 32});
  m.pe.requant.values_per_cycle = pick({2, 4, 8});
  return m;
}

struct Growth {
  std::string what;
  void (*grow)(machine::MachineConfig&, std::size_t level);
};

const Growth kGrowths[] = {
    {"LM ×2", [](machine::MachineConfig& m, std::size_t) { m.levels.back().memory_bytes *= 2; }},
    {"DRAM rate ×2", [](machine::MachineConfig& m, std::size_t) { m.dram.bytes_per_cycle *= 2; }},
    {"MAC rate ×2", [](machine::MachineConfig& m, std::size_t) { m.pe.mac.int8_macs_per_cycle *= 2; }},
    {"requant rate ×2", [](machine::MachineConfig& m, std::size_t) { m.pe.requant.values_per_cycle *= 2; }},
    {"down rate ×2", [](machine::MachineConfig& m, std::size_t l) { m.levels[l].down_bytes_per_cycle *= 2; }},
    {"up rate ×2", [](machine::MachineConfig& m, std::size_t l) { m.levels[l].up_bytes_per_cycle *= 2; }},
    {"upper memory ×2", [](machine::MachineConfig& m, std::size_t l) { m.levels[l].memory_bytes *= 2; }},
    {"fan-out ×2", [](machine::MachineConfig& m, std::size_t l) { m.levels[l].fanout *= 2; }},
};

TEST(GemmSearch, GrowingAMemoryARateOrAFanOutNeverWorsensTheDefaultPlansEstimate) {
  std::mt19937_64 rng(30);
  int compared = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const machine::MachineConfig small = random_machine(rng);
    std::uniform_int_distribution<std::uint64_t> size(1, 300);
    const std::uint64_t trits = trial % 3 == 0 ? 5 : 0;
    const QgemmProblem p = problem(size(rng), size(rng), size(rng), trits);
    const Growth& g = kGrowths[trial % std::size(kGrowths)];
    const std::size_t level = std::uniform_int_distribution<std::size_t>(0, small.levels.size() - 1)(rng);
    machine::MachineConfig big = small;
    g.grow(big, level);
    double before = 0;
    try {
      before = default_plan(p, small).estimated_cycles;
    } catch (const QgemmError&) {
      continue;  // nothing fits the smaller machine
    }
    const QgemmPlan after = default_plan(p, big);  // what fits the smaller one fits this one
    EXPECT_LE(after.estimated_cycles, before)
        << g.what << " at level " << level << ", " << p.m << "×" << p.n << "×" << p.k
        << (trits ? " ternary" : "") << ": " << describe(after, big);
    ++compared;
  }
  EXPECT_GE(compared, 100);
}

TEST(GemmSearch, MoreLmNeverGivesADieGemmAWorseEstimate) {
  // The sweep of issue 30 that found more LM slower: 1024³ on mncore-die at 16, 32, 64, 128 KiB.
  for (std::uint64_t dram : {32, 128, 256}) {
    double last = 0;
    for (std::uint64_t kib : {16, 32, 64, 128}) {
      machine::MachineConfig m = config("mncore-die");
      m.dram.bytes_per_cycle = dram;
      m.levels.back().memory_bytes = kib * 1024;
      const double e = default_plan(problem(1024, 1024, 1024, 0), m).estimated_cycles;
      if (last > 0) {
        EXPECT_LE(e, last) << kib << " KiB at " << dram << " B/cycle";
      }
      last = e;
    }
  }
}

TEST(GemmSearch, EveryStepCountIsTried) {
  // A plan with more K steps than the fewest the LM allows can win (a shorter fill and drain); the
  // search finds it though the short list of old (1, 2 or 4 steps at least) did not hold it.
  machine::MachineConfig m = config("mncore-die");
  m.levels.back().memory_bytes = 128 * 1024;
  const QgemmPlan p = default_plan(problem(1024, 1024, 1024, 0), m);
  EXPECT_GT(p.tiling.min_steps, 4u) << describe(p, m);
}

}  // namespace
}  // namespace treesim::kernels
