#include "sim/timing/scoreboard.h"

#include <gtest/gtest.h>

namespace treesim::timing {
namespace {

TEST(Scoreboard, ReadWaitsForOverlappingWrite) {
  Scoreboard s;
  s.commit({}, {{0, 0, 100}}, 50);
  EXPECT_EQ(s.ready({{0, 90, 110}}, {}), 50u);
  EXPECT_EQ(s.ready({{0, 100, 110}}, {}), 0u);  // half-open: no overlap
  EXPECT_EQ(s.ready({{1, 0, 100}}, {}), 0u);    // another address space
}

TEST(Scoreboard, WriteWaitsForReadersAndWriters) {
  Scoreboard s;
  s.commit({{0, 0, 10}}, {{0, 100, 110}}, 30);
  EXPECT_EQ(s.ready({}, {{0, 5, 6}}), 30u);      // WAR
  EXPECT_EQ(s.ready({}, {{0, 105, 106}}), 30u);  // WAW
  EXPECT_EQ(s.ready({{0, 5, 6}}, {}), 0u);       // RAR is free
}

TEST(Scoreboard, WrittenTracksUnionOfWrites) {
  Scoreboard s;
  s.commit({}, {{0, 0, 10}}, 1);
  s.commit({}, {{0, 10, 20}}, 2);
  s.commit({}, {{0, 30, 40}}, 3);
  EXPECT_TRUE(s.written({0, 0, 20}));
  EXPECT_TRUE(s.written({0, 5, 15}));
  EXPECT_FALSE(s.written({0, 15, 35}));
  EXPECT_FALSE(s.written({1, 0, 1}));
  s.mark_written({0, 18, 32});
  EXPECT_TRUE(s.written({0, 0, 40}));
}

}  // namespace
}  // namespace treesim::timing
