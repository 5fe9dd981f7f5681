// The partition rules: row ranges spread evenly, row ranges of balanced work (the lightest heaviest
// part, no part empty while rows last), whole block rows, the squarest grid, and the lock-step
// figures worked out by hand.
#include <gtest/gtest.h>

#include "sim/sparse/partition.h"

namespace treesim::sparse {
namespace partition_test {

using Bounds = std::vector<std::uint64_t>;

TEST(Partition, RowsSpreadsTheRemainderOverTheFirstParts) {
  // 10 rows over 4: 3, 3, 2, 2 (not 3, 3, 3, 1).
  EXPECT_EQ(row_bounds(Partition::kRows, Bounds(10, 1), 4), (Bounds{0, 3, 6, 8, 10}));
  // 33 rows over 32 PEs: no PE empty (⌈33/32⌉ = 2 rows each would leave 15 empty).
  const Bounds b = row_bounds(Partition::kRows, Bounds(33, 1), 32);
  for (std::size_t k = 0; k + 1 < b.size(); ++k) EXPECT_GE(b[k + 1] - b[k], 1u) << k;
}

TEST(Partition, RowsLeavesTrailingPartsEmptyOnlyWhenRowsRunOut) {
  EXPECT_EQ(row_bounds(Partition::kRows, Bounds(3, 1), 5), (Bounds{0, 1, 2, 3, 3, 3}));
}

TEST(Partition, NnzBalancesEntriesPlusOnePerRow) {
  // Row 0 holds 8 entries, rows 1..7 one each: weights 9, then 2 × 7; the least cap is 12 (the
  // mean, 11.5, rounded up), which row 0 and row 1 fill to 11.
  EXPECT_EQ(row_bounds(Partition::kNnz, Bounds{8, 1, 1, 1, 1, 1, 1, 1}, 2), (Bounds{0, 2, 8}));
}

TEST(Partition, NnzMakesTheHeaviestPartAsLightAsARowSplitCan) {
  // Weights 3, 1, 1, 1, 3 over 2: the best split holds 5 and 4 (a boundary at the middle of the
  // weight, 4.5, would cut row 2).
  EXPECT_EQ(row_bounds(Partition::kNnz, Bounds{2, 0, 0, 0, 2}, 2), (Bounds{0, 3, 5}));
  // Weights 4, 4, 1, 1, 1, 1 over 3: 4 | 4 | 4, where filling to the mean in order does no better.
  EXPECT_EQ(row_bounds(Partition::kNnz, Bounds{3, 3, 0, 0, 0, 0}, 3), (Bounds{0, 1, 2, 6}));
}

TEST(Partition, NnzGivesOneRowPerPartWhenRowsAreFew) {
  EXPECT_EQ(row_bounds(Partition::kNnz, Bounds{5, 1, 1}, 4), (Bounds{0, 1, 2, 3, 3}));
}

TEST(Partition, NnzKeepsEveryPartNonEmptyWhileRowsLast) {
  // One heavy row and three empty ones over 4 parts: balance alone would give part 0 everything.
  EXPECT_EQ(row_bounds(Partition::kNnz, Bounds{100, 0, 0, 0}, 4), (Bounds{0, 1, 2, 3, 4}));
  // A heavy last row keeps a part to itself; the light rows before it spread over the others.
  EXPECT_EQ(row_bounds(Partition::kNnz, Bounds{0, 0, 0, 100}, 3), (Bounds{0, 2, 3, 4}));
}

TEST(Partition, GroupsKeepBlockRowsWhole) {
  // 10 rows in 5 block rows of 2 over 2 parts: 3 and 2 block rows (not 5 rows each, which cuts one).
  EXPECT_EQ(row_bounds(Partition::kRows, Bounds(10, 1), 2, 2), (Bounds{0, 6, 10}));
  // An odd row count: the last group is one row.
  EXPECT_EQ(row_bounds(Partition::kRows, Bounds(5, 1), 3, 2), (Bounds{0, 2, 4, 5}));
  // nnz: block rows weigh 9 + 2, 1 + 2, 1 + 2: the boundary after the first.
  EXPECT_EQ(row_bounds(Partition::kNnz, Bounds{8, 1, 1, 0, 0, 1}, 2, 2), (Bounds{0, 2, 6}));
}

TEST(Partition, EvenBoundsSplitColumnsLikeRows) { EXPECT_EQ(even_bounds(7, 3), (Bounds{0, 3, 5, 7})); }

TEST(Partition, EvenBoundsKeepGroupsWhole) {
  // 7 columns in groups of 2 (the last of one) over 3 ranges: 2, 1 and 1 groups.
  EXPECT_EQ(even_bounds(7, 3, 2), (Bounds{0, 4, 6, 7}));
}

TEST(Partition, SquarestGridColumnsDivideThePes) {
  EXPECT_EQ(squarest_grid_cols(8), 2u);
  EXPECT_EQ(squarest_grid_cols(16), 4u);
  EXPECT_EQ(squarest_grid_cols(7), 1u);
  EXPECT_EQ(squarest_grid_cols(1), 1u);
}

TEST(Partition, StatsAreTheLockStepFigures) {
  const PartitionStats s = partition_stats({2, 3});
  EXPECT_EQ(s.total, 5u);
  EXPECT_EQ(s.min, 2u);
  EXPECT_EQ(s.max, 3u);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.imbalance, 1.2);
  EXPECT_EQ(s.idle_slots, 1u);
}

TEST(Partition, NamesParseAndPrint) {
  Partition p = Partition::kRows;
  EXPECT_TRUE(parse_partition("2d", p));
  EXPECT_EQ(p, Partition::k2d);
  EXPECT_EQ(partition_name(Partition::kNnz), "nnz");
  EXPECT_FALSE(parse_partition("cols", p));
}

}  // namespace partition_test
}  // namespace treesim::sparse
