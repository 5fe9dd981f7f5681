#include "sim/timing/resources.h"

#include <gtest/gtest.h>

#include "sim/machine/machine_file.h"
#include "tests/test_support.h"

namespace treesim::timing {
namespace {

TEST(Timing, TransferIsLatencyPlusLargestStage) {
  Cost c = transfer_cost({{0, 100, 64}, {5, 100, 8}, {7, 40, 16}}, 115);
  EXPECT_EQ(c.duration, 115u + 13u);  // ceil(100/8) = 13 is the largest stage
  ASSERT_EQ(c.uses.size(), 3u);
  EXPECT_EQ(c.uses[0].cycles, 2u);   // ceil(100/64)
  EXPECT_EQ(c.uses[1].cycles, 13u);  // ceil(100/8)
  EXPECT_EQ(c.uses[2].cycles, 3u);   // ceil(40/16)
}

TEST(Timing, EmptyStagesHoldNothing) {
  Cost c = transfer_cost({{0, 0, 64}}, 7);
  EXPECT_EQ(c.duration, 7u);
  EXPECT_TRUE(c.uses.empty());
}

TEST(Timing, UnitIsLatencyPlusCeilWorkOverRate) {
  Cost c = unit_cost(Resources::kMac, 129, 64, 4);
  EXPECT_EQ(c.duration, 4u + 3u);
  ASSERT_EQ(c.uses.size(), 1u);
  EXPECT_EQ(c.uses[0].cycles, 3u);
}

TEST(Timing, ResourcesAreNamedPerLevelAndDirection) {
  Resources r(machine::load_machine_file(testing::source_path("configs/mini.yaml")));
  EXPECT_EQ(r.name(Resources::kDram), "dram");
  EXPECT_EQ(r.name(r.down(0)), "L2B.down");
  EXPECT_EQ(r.name(r.up(3)), "PE.up");
  EXPECT_EQ(r.count(), 5u + 8u);
}

TEST(Timing, OccupyAdvancesNextFreeAndCountsBusy) {
  Resources r(machine::load_machine_file(testing::source_path("configs/mini.yaml")));
  r.occupy(Resources::kMac, 10, 5);
  EXPECT_EQ(r.next_free(Resources::kMac), 15u);
  r.occupy(Resources::kMac, 20, 5);
  EXPECT_EQ(r.busy_cycles(Resources::kMac), 10u);
  EXPECT_THROW(r.occupy(Resources::kMac, 24, 1), std::logic_error);
}

}  // namespace
}  // namespace treesim::timing
