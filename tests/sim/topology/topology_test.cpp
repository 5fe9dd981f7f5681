#include "sim/topology/topology.h"

#include <gtest/gtest.h>

#include <sstream>

#include "sim/machine/machine_file.h"
#include "tests/configs.h"
#include "tests/test_support.h"

namespace treesim::topology {
namespace {

Topology load(const std::string& name) { return Topology(testing::config(name)); }

TEST(Topology, MiniUnitsPerLevel) {
  Topology t = load("mini");
  EXPECT_EQ(t.level_count(), 4u);
  EXPECT_EQ(t.units_at_level(kBoardLevel), 1u);
  EXPECT_EQ(t.units_at_level(0), 1u);
  EXPECT_EQ(t.units_at_level(1), 2u);
  EXPECT_EQ(t.units_at_level(2), 8u);
  EXPECT_EQ(t.units_at_level(3), 32u);
  EXPECT_EQ(t.total_units(), 1u + 1 + 2 + 8 + 32);
}

TEST(Topology, BoardUnitsPerLevel) {
  Topology t = load("mncore-board");
  EXPECT_EQ(t.units_at_level(0), 16u);
  EXPECT_EQ(t.units_at_level(1), 128u);
  EXPECT_EQ(t.units_at_level(2), 2048u);
  EXPECT_EQ(t.units_at_level(3), 8192u);
  EXPECT_EQ(t.total_units(), 1u + 16 + 128 + 2048 + 8192);
}

TEST(Topology, PathNamesFollowTheTree) {
  Topology t = load("mncore-board");
  Unit pe = t.from_coordinates({3, 5, 2, 1});
  EXPECT_EQ(t.path_name(pe), "board.L2B_3.L1B_5.MAB_2.PE_1");
  EXPECT_EQ(t.find("board.L2B_3.L1B_5.MAB_2.PE_1"), pe);
  EXPECT_EQ(t.path_name(*t.parent(pe)), "board.L2B_3.L1B_5.MAB_2");
  EXPECT_FALSE(t.parent(t.board()).has_value());
}

TEST(Topology, ChildrenAreInOrder) {
  Topology t = load("mini");
  std::vector<Unit> kids = t.children(t.unit(1, 1));
  ASSERT_EQ(kids.size(), 4u);
  for (std::size_t i = 0; i < kids.size(); ++i) {
    EXPECT_EQ(t.level_of(kids[i]), 2);
    EXPECT_EQ(t.index_of(kids[i]), 4 + i);
  }
}

TEST(Topology, PeIdRoundTripsThroughCoordinates) {
  Topology t = load("mncore-board");
  for (std::uint64_t id : {0ull, 1ull, 4ull, 63ull, 64ull, 511ull, 4097ull, 8191ull}) {
    std::vector<std::uint64_t> c = t.pe_coordinates(id);
    ASSERT_EQ(c.size(), 4u);
    EXPECT_EQ(t.pe_id(c), id);
    // Global id = ((L2B·8 + L1B)·16 + MAB)·4 + PE.
    EXPECT_EQ(((c[0] * 8 + c[1]) * 16 + c[2]) * 4 + c[3], id);
  }
}

TEST(Topology, LowestCommonAncestorOnMini) {
  Topology t = load("mini");
  Unit a = t.from_coordinates({0, 0, 1, 2});
  Unit b = t.from_coordinates({0, 0, 1, 3});
  Unit c = t.from_coordinates({0, 0, 3, 0});
  Unit d = t.from_coordinates({0, 1, 0, 0});
  EXPECT_EQ(t.path_name(t.lowest_common_ancestor(a, b)), "board.L2B_0.L1B_0.MAB_1");
  EXPECT_EQ(t.path_name(t.lowest_common_ancestor(a, c)), "board.L2B_0.L1B_0");
  EXPECT_EQ(t.path_name(t.lowest_common_ancestor(a, d)), "board.L2B_0");
  EXPECT_EQ(t.lowest_common_ancestor(a, a), a);
  EXPECT_EQ(t.lowest_common_ancestor(a, *t.parent(a)), *t.parent(a));
}

TEST(Topology, LowestCommonAncestorOnBoard) {
  Topology t = load("mncore-board");
  Unit a = t.from_coordinates({3, 5, 2, 1});
  Unit b = t.from_coordinates({12, 0, 0, 0});
  Unit c = t.from_coordinates({3, 5, 9, 0});
  EXPECT_EQ(t.lowest_common_ancestor(a, b), t.board());
  EXPECT_EQ(t.path_name(t.lowest_common_ancestor(a, c)), "board.L2B_3.L1B_5");
}

TEST(Topology, PathGoesUpThenDown) {
  Topology t = load("mini");
  Unit a = t.from_coordinates({0, 0, 1, 2});
  Unit c = t.from_coordinates({0, 0, 3, 0});
  std::vector<std::string> names;
  for (Unit u : t.path(a, c)) names.push_back(t.path_name(u));
  EXPECT_EQ(names, (std::vector<std::string>{"board.L2B_0.L1B_0.MAB_1.PE_2", "board.L2B_0.L1B_0.MAB_1",
                                             "board.L2B_0.L1B_0", "board.L2B_0.L1B_0.MAB_3",
                                             "board.L2B_0.L1B_0.MAB_3.PE_0"}));
}

TEST(Topology, PathOnBoardCrossesTheRoot) {
  Topology t = load("mncore-board");
  auto p = t.path(t.from_coordinates({0, 0, 0, 0}), t.from_coordinates({15, 7, 15, 3}));
  ASSERT_EQ(p.size(), 9u);
  EXPECT_EQ(p[4], t.board());
}

TEST(Topology, ALinkKnowsItsChildsLevel) {
  Topology t = load("mini");
  EXPECT_EQ(t.uplink(t.from_coordinates({0, 1, 2})).level, 2);
}

TEST(Topology, OutOfRangeCoordinatesThrow) {
  Topology t = load("mini");
  EXPECT_THROW(t.from_coordinates({0, 2}), std::out_of_range);
  EXPECT_THROW(t.unit(3, 32), std::out_of_range);
}

TEST(Topology, DotHasOneNodePerUnitAndOneEdgePerLink) {
  Topology t = load("mini");
  std::ostringstream dot;
  t.write_dot(dot);
  std::string s = dot.str();
  auto count = [&](const std::string& needle) {
    std::size_t n = 0;
    for (auto p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("[label=\""), 44u);  // 44 units; links are labelled only when asked
  EXPECT_EQ(count(" -> "), 43u);
}

TEST(Topology, DotLabelsLinksByTheirLevel) {
  Topology t = load("mini");
  std::ostringstream dot;
  t.write_dot(dot, 2, [](int level) { return "level " + std::to_string(level); });
  EXPECT_NE(dot.str().find("\"board\" -> \"board.L2B_0\" [label=\"level 0\"]"), std::string::npos);
  EXPECT_NE(dot.str().find("\"board.L2B_0\" -> \"board.L2B_0.L1B_1\" [label=\"level 1\"]"),
            std::string::npos);
}

TEST(Topology, DotDepthStopsAtALevel) {
  Topology t = load("mini");
  std::ostringstream dot;
  t.write_dot(dot, 2);  // board, L2B, L1B
  EXPECT_EQ(dot.str().find("MAB_"), std::string::npos);
  EXPECT_NE(dot.str().find("board.L2B_0.L1B_1"), std::string::npos);
}

}  // namespace
}  // namespace treesim::topology
