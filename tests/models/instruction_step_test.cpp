// pe.instruction_step_cycles: lock-step PE instructions start at least that many cycles apart (MN-Core
// 2 issues one per 4-cycle step); 1 leaves each unit to start when it is free.
#include <gtest/gtest.h>

#include "models/simulation.h"
#include "tests/configs.h"
#include "tests/models/parse.h"

namespace treesim::models {
namespace {

// Two one-cycle copies after a load: how far apart they start on mini with the given step.
std::uint64_t copies_apart(std::uint64_t step) {
  machine::MachineConfig m = testing::mini();
  m.pe.instruction_step_cycles = step;
  const program::Program p = testing::parse(
      "tensor B shape=64\nload tensor=B layout=\"((2_L1B, 4_MAB, 4_PE, 2:1))\"\n"
      "copy src=0 dst=16 bytes=2\ncopy src=0 dst=32 bytes=2\n",
      m);
  Simulation sim(m);
  const SimulationResult r = sim.run(p, {{"B", std::vector<std::uint8_t>(64, 1)}});
  return r.timings[2].start - r.timings[1].start;
}

TEST(InstructionStep, PeInstructionsStartAStepApart) { EXPECT_EQ(copies_apart(4), 4u); }

TEST(InstructionStep, AStepOfOneLeavesEachUnitToStartWhenFree) { EXPECT_EQ(copies_apart(1), 1u); }

}  // namespace
}  // namespace treesim::models
