// Lanes: identical resources with one timeline each, alike (O(1)) until a step holds them unequally.
#include "models/lanes.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace treesim::models {
namespace {

TEST(Lanes, HoldingEveryLaneAlikeAdvancesThemAllAndCountsEach) {
  Lanes l(1000);
  l.hold_all(5, 10, 64);
  EXPECT_TRUE(l.alike());
  EXPECT_EQ(l.next_free(0), 15u);
  EXPECT_EQ(l.next_free(999), 15u);
  EXPECT_EQ(l.busy_cycles(7), 10u);
  EXPECT_EQ(l.work(7), 64u);
}

TEST(Lanes, HoldingOneLaneSpreadsThemAndLeavesTheOthersFree) {
  Lanes l(4);
  l.hold_all(0, 3, 1);
  l.hold_one(2, 3, 10, 5);
  EXPECT_FALSE(l.alike());
  EXPECT_EQ(l.next_free(2), 13u);
  EXPECT_EQ(l.next_free(1), 3u);
  EXPECT_EQ(l.latest_free(), 13u);
  EXPECT_EQ(l.busy_cycles(2), 13u);
  EXPECT_EQ(l.busy_cycles(1), 3u);
  EXPECT_EQ(l.work(2), 6u);
}

TEST(Lanes, HoldingEveryLaneAgainMakesThemAlike) {
  Lanes l(4);
  l.hold_one(1, 0, 10, 1);
  l.hold_all(l.latest_free(), 2, 1);
  EXPECT_TRUE(l.alike());
  EXPECT_EQ(l.next_free(0), 12u);
  EXPECT_EQ(l.busy_cycles(1), 12u);  // its own hold is still counted
  EXPECT_EQ(l.busy_cycles(0), 2u);
}

TEST(Lanes, HoldingABusyLaneIsABug) {
  Lanes l(2);
  l.hold_all(0, 5, 1);
  EXPECT_THROW(l.hold_all(4, 1, 1), std::logic_error);
  EXPECT_THROW(l.hold_one(0, 4, 1, 1), std::logic_error);
}

TEST(Lanes, ANewRunRestartsTheCountersButKeepsTheNextFreeTimes) {
  Lanes l(3);
  l.hold_one(1, 0, 7, 3);
  l.start_run(7, nullptr, 0, 0, timing::Resource::dram());
  EXPECT_EQ(l.busy_cycles(1), 0u);
  EXPECT_EQ(l.work(1), 0u);
  EXPECT_EQ(l.next_free(1), 7u);
}

}  // namespace
}  // namespace treesim::models
