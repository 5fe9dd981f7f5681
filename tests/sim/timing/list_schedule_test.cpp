#include "sim/timing/list_schedule.h"

#include <gtest/gtest.h>

namespace treesim::timing {
namespace list_schedule_test {  // named: unity builds batch test files together

const Resource kDram = Resource::dram(), kMac = Resource::unit(Unit::kMac);
const Resource kDown = Resource::port(0, Direction::kDown);

TEST(ListSchedule, IndependentStepsOnDifferentResourcesOverlap) {
  const std::vector<Range> a{{0, 0, 8}}, b{{0, 8, 16}};
  EXPECT_EQ(list_schedule({{nullptr, &a, {{kDram, 10}}, 10}, {nullptr, &b, {{kMac, 7}}, 7}}), 10u);
}

TEST(ListSchedule, AResourceServesItsStepsInOrder) {
  const std::vector<Range> a{{0, 0, 8}}, b{{0, 8, 16}};
  // The second transfer's DRAM stage waits for the first's; its latency follows its own stage.
  EXPECT_EQ(list_schedule({{nullptr, &a, {{kDram, 10}}, 12}, {nullptr, &b, {{kDram, 10}}, 12}}), 22u);
}

TEST(ListSchedule, EachStageOfATransferQueuesOnItsOwnResource) {
  const std::vector<Range> a{{0, 0, 8}}, b{{0, 8, 16}};
  // The first holds DRAM 4 and the port 10; the second holds DRAM 10 and the port 2: its DRAM stage
  // starts at 4, its port stage at 10; it ends when the later (port at 12, DRAM at 14) does.
  EXPECT_EQ(list_schedule(
                {{nullptr, &a, {{kDram, 4}, {kDown, 10}}, 10}, {nullptr, &b, {{kDram, 10}, {kDown, 2}}, 10}}),
            14u);
}

TEST(ListSchedule, AStepWaitsForTheDataItReadsAndOverwrites) {
  const std::vector<Range> x{{0, 0, 8}}, y{{0, 8, 16}};
  // Load x (20), walk x into y (5: after the load), load x again (WAR: after the walk has read it).
  EXPECT_EQ(
      list_schedule(
          {{nullptr, &x, {{kDram, 20}}, 20}, {&x, &y, {{kMac, 5}}, 5}, {nullptr, &x, {{kDram, 20}}, 20}}),
      45u);
}

}  // namespace list_schedule_test
}  // namespace treesim::timing
