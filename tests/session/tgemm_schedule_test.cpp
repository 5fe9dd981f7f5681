// tgemm's schedule: the decode of each next W tile runs while the current tile's ternary MACs do,
// and the kernel's tiles fit the planner's packed buffers. Each test simulates once.
#include <gtest/gtest.h>

#include "kernels/registry.h"
#include "kernels/tgemm/tgemm.h"
#include "session/run_problem.h"
#include "sim/machine/machine_file.h"
#include "tests/configs.h"
#include "tests/test_support.h"

namespace treesim::kernels {
namespace {

TEST(TgemmSchedule, TheNextTilesDecodeOverlapsTheCurrentTilesMacs) {
  const machine::MachineConfig m = testing::config("mini");
  const Kernel* k = find_kernel("tgemm");
  ASSERT_NE(k, nullptr);
  Result<Options> o = parse_options(k->options, {{"m", "256"}, {"n", "128"}, {"k", "2000"}});
  ASSERT_TRUE(o.ok());
  auto problem = k->make_problem(o.value(), m);
  ASSERT_TRUE(problem.ok());
  Result<Plan> plan = session::plan_problem(*problem.value(), m);
  ASSERT_TRUE(plan.ok());
  Result<program::Program> prog = problem.value()->program(plan.value(), m);
  ASSERT_TRUE(prog.ok());
  models::Simulation sim(m);
  const Result<session::Outcome> outcome = session::run_problem(*problem.value(), plan.value(), sim, {});
  ASSERT_TRUE(outcome.ok());
  const models::SimulationResult& r = outcome->run;
  // Every MAC with a next tile (all but the last step's) has that tile decoding under it.
  std::size_t followed = 0, overlapping = 0;
  for (std::size_t i = 0; i < prog->instrs.size(); ++i) {
    if (!std::holds_alternative<program::TernaryMac>(prog->instrs[i])) continue;
    for (std::size_t j = i + 1; j < prog->instrs.size(); ++j)
      if (std::holds_alternative<program::DptDecode>(prog->instrs[j])) {
        ++followed;
        if (r.timings[j].start < r.timings[i].end) ++overlapping;
        break;
      }
  }
  ASSERT_GE(followed, 2u);  // several K steps
  EXPECT_EQ(overlapping, followed);
}

}  // namespace
}  // namespace treesim::kernels
