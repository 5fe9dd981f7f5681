// Splitting stored entries over PEs: row ranges, balanced nonzeros and a 2-D grid, with the
// lock-step figures (imbalance, idle MAC slots) worked out by hand.
#include <gtest/gtest.h>

#include "sim/sparse/encoding.h"
#include "sim/sparse/partition.h"

namespace treesim::sparse {
namespace {

const std::vector<double> kA = {1, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0, 4, 0, 5, 0};

// 8×8: row 0 full, then one entry on the diagonal of each other row (15 entries).
std::vector<double> skewed() {
  std::vector<double> d(64, 0.0);
  for (int j = 0; j < 8; ++j) d[j] = 1;
  for (int i = 1; i < 8; ++i) d[i * 8 + i] = 1;
  return d;
}

TEST(Partition, RowsSplitsEqualRowRanges) {
  const SparseMatrix m = build_dense(kA, 4, 4, parse_encoding("csr"));
  const PartitionStats s = partition_stats(m, make_partition(m, Partition::kRows, 2));
  EXPECT_EQ(s.per_pe, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(s.min, 2u);
  EXPECT_EQ(s.max, 3u);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.imbalance, 1.2);
  EXPECT_EQ(s.idle_slots, 1u);
}

TEST(Partition, NnzBalancesAroundAHeavyRow) {
  const SparseMatrix m = build_dense(skewed(), 8, 8, parse_encoding("csr"));
  const PartitionStats by_rows = partition_stats(m, make_partition(m, Partition::kRows, 2));
  EXPECT_EQ(by_rows.per_pe, (std::vector<std::uint64_t>{11, 4}));
  const PartitionMap map = make_partition(m, Partition::kNnz, 2);
  EXPECT_EQ(map.row_starts, (std::vector<std::uint64_t>{0, 1, 8}));
  const PartitionStats by_nnz = partition_stats(m, map);
  EXPECT_EQ(by_nnz.per_pe, (std::vector<std::uint64_t>{8, 7}));
  EXPECT_LT(by_nnz.imbalance, by_rows.imbalance);
}

TEST(Partition, TwoDimensionalGridIsTheSquarest) {
  const SparseMatrix m = build_dense(skewed(), 8, 8, parse_encoding("csr"));
  const PartitionMap map = make_partition(m, Partition::k2d, 8);
  EXPECT_EQ(map.grid_rows, 4u);
  EXPECT_EQ(map.grid_cols, 2u);
  const PartitionStats s = partition_stats(m, map);
  // Rows 0-1 × cols 0-3: row 0's four and (1,1); rows 0-1 × cols 4-7: row 0's other four.
  EXPECT_EQ(s.per_pe, (std::vector<std::uint64_t>{5, 4, 2, 0, 0, 2, 0, 2}));
  EXPECT_EQ(s.idle_slots, 8u * 5 - 15);
}

TEST(Partition, BlocksCountTheirStoredZerosAsWork) {
  const std::vector<double> block = {1, 2, 0, 0, 4, 0, 0, 3, 0, 0, 0, 5, 0, 0, 6, 7, 0, 0, 0, 0, 8, 0, 0, 0};
  const SparseMatrix csr = build_dense(block, 4, 6, parse_encoding("csr"));
  const SparseMatrix bsr = build_dense(block, 4, 6, parse_encoding("bsr2x2"));
  EXPECT_EQ(partition_stats(csr, make_partition(csr, Partition::kRows, 2)).per_pe,
            (std::vector<std::uint64_t>{5, 3}));
  EXPECT_EQ(partition_stats(bsr, make_partition(bsr, Partition::kRows, 2)).per_pe,
            (std::vector<std::uint64_t>{8, 4}));
}

TEST(Partition, NamesParseAndPrint) {
  Partition p = Partition::kRows;
  EXPECT_TRUE(parse_partition("2d", p));
  EXPECT_EQ(p, Partition::k2d);
  EXPECT_EQ(partition_name(Partition::kNnz), "nnz");
  EXPECT_FALSE(parse_partition("cols", p));
}

}  // namespace
}  // namespace treesim::sparse
