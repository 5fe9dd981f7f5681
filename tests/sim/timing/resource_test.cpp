// Resources: one dense numbering and one set of names for the sequencer, planners, roofline and traces.
#include "sim/timing/resource.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/configs.h"

namespace treesim::timing {
namespace {

TEST(Resource, IndicesAreDenseAndRoundTrip) {
  auto m = testing::config("mini");
  m.pe.vector.reset();
  const std::vector<Resource> all = Resource::all(m);
  ASSERT_EQ(all.size(), 5u + 8u);  // DRAM, four PE units (no vector unit), 4 levels × 2
  for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(Resource::from_index(all[i].index()), all[i]);
  EXPECT_EQ(std::count(all.begin(), all.end(), Resource::unit(Unit::kVector)), 0);
}

TEST(Resource, AVectorUnitIsAResourceOnlyWhereTheMachineHasOne) {
  const auto m = testing::config("mini");  // mini has a vector unit
  const std::vector<Resource> all = Resource::all(m);
  ASSERT_EQ(all.size(), 6u + 8u);
  for (std::size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].index(), i);
  EXPECT_EQ(name(Resource::unit(Unit::kVector), m), "vector");
  EXPECT_STREQ(work_name(Resource::unit(Unit::kVector)), "lane_cycles");
}

TEST(Resource, ReportsNameResourcesPerLevelAndDirection) {
  const auto m = testing::config("mini");
  EXPECT_EQ(name(Resource::dram(), m), "dram");
  EXPECT_EQ(name(Resource::unit(Unit::kMac), m), "mac");
  EXPECT_EQ(name(Resource::unit(Unit::kDptDecoder), m), "dpt_decoder");
  EXPECT_EQ(name(Resource::port(0, Direction::kDown), m), "L2B.down");
  EXPECT_EQ(name(Resource::port(3, Direction::kUp), m), "PE.up");
}

TEST(Resource, TracesNameResourcesAtTheUnitThatHoldsThem) {
  EXPECT_STREQ(trace_name(Resource::port(2, Direction::kUp)), "up");
  EXPECT_STREQ(trace_name(Resource::unit(Unit::kDptDecoder)), "dpt");
  EXPECT_STREQ(work_name(Resource::unit(Unit::kMac)), "macs");
  EXPECT_STREQ(work_name(Resource::unit(Unit::kRequant)), "values");
  EXPECT_STREQ(work_name(Resource::dram()), "bytes");
}

}  // namespace
}  // namespace treesim::timing
