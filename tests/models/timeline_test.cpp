// Resource timelines and their names: what every port and unit of the model is built on.
#include "models/timeline.h"

#include <gtest/gtest.h>

#include "models/sequencer.h"
#include "sim/machine/machine_file.h"
#include "tests/configs.h"
#include "tests/test_support.h"

namespace treesim::models {
namespace {

TEST(Timeline, HoldAdvancesNextFreeAndCountsBusyCyclesAndWork) {
  Timeline t;
  t.hold(10, 5, 64);
  EXPECT_EQ(t.next_free(), 15u);
  t.hold(20, 5, 32);
  EXPECT_EQ(t.busy_cycles(), 10u);
  EXPECT_EQ(t.work(), 96u);
}

TEST(Timeline, HoldingABusyResourceIsABug) {
  Timeline t;
  t.hold(20, 5, 1);
  EXPECT_THROW(t.hold(24, 1, 1), std::logic_error);
}

TEST(Timeline, ANewRunRestartsTheCountersButKeepsTheNextFreeTime) {
  Timeline t;
  t.hold(0, 7, 3);
  t.start_run(7);
  EXPECT_EQ(t.busy_cycles(), 0u);
  EXPECT_EQ(t.work(), 0u);
  EXPECT_EQ(t.next_free(), 7u);
}

TEST(Timeline, ResourcesAreNamedPerLevelAndDirection) {
  const auto m = testing::config("mini");
  EXPECT_EQ(resource_name(m, 0), "dram");
  EXPECT_EQ(resource_name(m, unit_resource(timing::Unit::kMac)), "mac");
  EXPECT_EQ(resource_name(m, port_resource(0, timing::Direction::kDown)), "L2B.down");
  EXPECT_EQ(resource_name(m, port_resource(3, timing::Direction::kUp)), "PE.up");
  EXPECT_EQ(resource_count(m), 5u + 8u);
}

}  // namespace
}  // namespace treesim::models
