// tgemm's schedule: the decode of each next W tile runs while the current tile's ternary MACs do,
// and the kernel's tiles fit the planner's packed buffers. Each test simulates once.
#include <gtest/gtest.h>

#include "tests/configs.h"
#include "tests/tools/session/simulated_kernel.h"

namespace treesim::kernels {
namespace {

TEST(TgemmSchedule, TheNextTilesDecodeOverlapsTheCurrentTilesMacs) {
  const machine::MachineConfig m = testing::config("mini");
  const auto run = testing::simulate_kernel("tgemm", {{"m", "256"}, {"n", "128"}, {"k", "2000"}}, m);
  ASSERT_TRUE(run);
  const std::vector<program::Instr>& instrs = run->program.instrs;
  const models::SimulationResult& r = run->outcome.run;
  // Every MAC with a next tile (all but the last step's) has that tile decoding under it.
  std::size_t followed = 0, overlapping = 0;
  for (std::size_t i = 0; i < instrs.size(); ++i) {
    if (!std::holds_alternative<program::TernaryMac>(instrs[i])) continue;
    for (std::size_t j = i + 1; j < instrs.size(); ++j)
      if (std::holds_alternative<program::DptDecode>(instrs[j])) {
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
