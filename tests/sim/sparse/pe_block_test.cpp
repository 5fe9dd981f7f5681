// A PE's block (sim/sparse/pe_block.h): packed and read back it is the same matrix in every named
// encoding and width, the walk's product equals the dense one, the walk's work is what the note's
// example says, and a block whose counts run past its bytes is refused.
#include <gtest/gtest.h>

#include <array>

#include <random>

#include "sim/sparse/encoding.h"
#include "sim/sparse/pe_block.h"
#include "sim/sparse/quantized.h"
#include "sim/sparse/sparse_error.h"
#include "sim/sparse/storage.h"
#include "sim/sparse/walk.h"

namespace treesim::sparse {
namespace {

// tensor-layout §8.3's example A (4×4, nnz 5).
std::vector<double> example() { return {1, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0, 4, 0, 5, 0}; }

// Small int8 values, at most 2 per aligned 1×4 block and 3 per row (2:4 and ELL hold them).
std::vector<double> random_dense(std::mt19937& rng, std::uint64_t rows, std::uint64_t cols) {
  std::uniform_int_distribution<int> value(-127, 127), coin(0, 2);
  std::vector<double> d(rows * cols, 0.0);
  for (std::uint64_t i = 0; i < rows; ++i) {
    int in_row = 0;
    for (std::uint64_t j = 0; j < cols; ++j) {
      int in_block = 0;
      for (std::uint64_t k = j - j % 4; k < j; ++k) in_block += d[i * cols + k] != 0;
      const int v = value(rng);
      if (coin(rng) == 0 && v != 0 && in_block < 2 && in_row < 3) d[i * cols + j] = v, ++in_row;
    }
  }
  return d;
}

const char* kEncodings[] = {
    "csr",
    "csc",
    "coo",
    "dcsr",
    "dcsc",
    "bsr2x2",
    "bsr3x2",
    "ell",
    "2:4",
    "#sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed), posWidth = 8, crdWidth = 8 }>",
    "#sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed), posWidth = 16, crdWidth = 32 }>"};

TEST(PeBlock, PackThenUnpackGivesTheSameArraysInEveryEncoding) {
  std::mt19937 rng(7);
  for (const char* text : kEncodings) {
    const Encoding e = parse_encoding(text);
    for (int trial = 0; trial < 20; ++trial) {
      const std::uint64_t rows = 1 + rng() % 11, cols = 1 + rng() % 13;
      const SparseMatrix m = build_dense(random_dense(rng, rows, cols), rows, cols, e);
      const std::vector<std::uint8_t> bytes = pack_block(m);
      ASSERT_EQ(bytes.size(), block_bytes(m));
      const SparseMatrix back = unpack_block(bytes.data(), bytes.size(), e);
      EXPECT_EQ(back.rows, m.rows);
      EXPECT_EQ(back.cols, m.cols);
      EXPECT_EQ(back.level_sizes, m.level_sizes) << text;
      for (std::size_t l = 0; l < m.levels.size(); ++l) {
        EXPECT_EQ(back.levels[l].positions, m.levels[l].positions) << text;
        EXPECT_EQ(back.levels[l].coordinates, m.levels[l].coordinates) << text;
      }
      EXPECT_EQ(back.values, m.values) << text;
    }
  }
}

TEST(PeBlock, TheWalksProductEqualsTheDenseProductInEveryEncoding) {
  std::mt19937 rng(11);
  for (const char* text : kEncodings) {
    const Encoding e = parse_encoding(text);
    for (int trial = 0; trial < 20; ++trial) {
      const std::uint64_t rows = 1 + rng() % 11, cols = 1 + rng() % 13;
      const std::vector<double> dense = random_dense(rng, rows, cols);
      std::vector<std::int8_t> x(cols);
      for (auto& v : x) v = static_cast<std::int8_t>(static_cast<int>(rng() % 256) - 128);
      const SparseMatrix m = build_dense(dense, rows, cols, e);
      std::vector<std::int32_t> y(rows, 0);
      multiply_block(m, x.data(), 1, 0, y.data());
      EXPECT_EQ(y, spmv_dense(dense, rows, cols, x)) << text;
    }
  }
}

TEST(PeBlock, TheZeroPointIsSubtractedFromEveryColumnOfB) {
  const SparseMatrix m = build_dense(example(), 4, 4, parse_encoding("csr"));
  // B 4×2 with columns (c + 10, −c); zero point 3.
  const std::vector<std::int8_t> b = {10, 0, 11, -1, 12, -2, 13, -3};
  std::vector<std::int32_t> c(8, 0);
  multiply_block(m, b.data(), 2, 3, c.data());
  // Row 0: 1·(B[0] − 3) + 2·(B[3] − 3); row 2: 3·(B[1] − 3); row 3: 4·(B[0] − 3) + 5·(B[2] − 3).
  EXPECT_EQ(c, (std::vector<std::int32_t>{1 * 7 + 2 * 10, 1 * -3 + 2 * -6, 0, 0, 3 * 8, 3 * -4, 4 * 7 + 5 * 9,
                                          4 * -3 + 5 * -5}));
}

TEST(PeBlock, WalkWorkCountsEntriesAndSegmentsAsTheNoteStoresThem) {
  const std::vector<double> a = example();
  // CSR: 5 entries, one segment per row; DCSR: 3 stored rows + the root segment; COO: one segment.
  EXPECT_EQ(walk_work(build_dense(a, 4, 4, parse_encoding("csr"))).entries, 5u);
  EXPECT_EQ(walk_work(build_dense(a, 4, 4, parse_encoding("csr"))).segments, 4u);
  EXPECT_EQ(walk_work(build_dense(a, 4, 4, parse_encoding("dcsr"))).segments, 4u);
  EXPECT_EQ(walk_work(build_dense(a, 4, 4, parse_encoding("coo"))).segments, 1u);
  // ELL with 3 slots walks every slot: 4 rows × 3, no positions.
  const WalkWork ell = walk_work(build_dense(a, 4, 4, parse_encoding("ell")));
  EXPECT_EQ(ell.entries, 12u);
  EXPECT_EQ(ell.segments, 0u);
  // BSR 2×2: blocks (0,0), (0,1), (1,0), (1,1) all hold an entry: 4 blocks of 4.
  EXPECT_EQ(walk_work(build_dense(a, 4, 4, parse_encoding("bsr2x2"))).entries, 16u);
}

TEST(PeBlock, WalkWorkCountsTheCoordinatesEachLevelKindStepsThrough) {
  const std::vector<double> a = example();  // 4×4, 5 entries in rows 0, 2, 3
  using A = std::array<std::uint64_t, kVisitKinds>;
  // CSR: 4 dense rows, 5 compressed columns. COO: 5 compressed rows (non-unique), 5 singleton columns.
  EXPECT_EQ(walk_work(build_dense(a, 4, 4, parse_encoding("csr"))).visits, (A{4, 5, 0, 0}));
  EXPECT_EQ(walk_work(build_dense(a, 4, 4, parse_encoding("coo"))).visits, (A{0, 5, 5, 0}));
  // DCSR: 3 stored rows, then their 5 columns.
  EXPECT_EQ(walk_work(build_dense(a, 4, 4, parse_encoding("dcsr"))).visits, (A{0, 8, 0, 0}));
  // BSR 2×2: 2 dense block rows, 4 stored blocks, 2 dense rows and 2 dense columns in each.
  EXPECT_EQ(walk_work(build_dense(a, 4, 4, parse_encoding("bsr2x2"))).visits,
            (A{2 + 4 * 2 + 4 * 4, 4, 0, 0}));
  // ELL with 3 slots: a dense step per row, a coordinate per slot.
  EXPECT_EQ(walk_work(build_dense(a, 4, 4, parse_encoding("ell"))).visits, (A{4, 0, 12, 0}));
  // 2:4 on a 2:4 matrix: 4 dense rows, a dense step per group of 4 columns, 2 slots per group.
  const std::vector<double> nm = {1, 0, 2, 0, 0, 3, 0, 0, 0, 0, 0, 0, 4, 5, 0, 0};
  EXPECT_EQ(walk_work(build_dense(nm, 4, 4, parse_encoding("2:4"))).visits, (A{4 + 4, 0, 0, 8}));
}

TEST(PeBlock, ABlockWhoseCountsRunPastItsBytesIsRefused) {
  const SparseMatrix m = build_dense(example(), 4, 4, parse_encoding("csr"));
  std::vector<std::uint8_t> bytes = pack_block(m);
  EXPECT_THROW(unpack_block(bytes.data(), bytes.size() - 8, m.encoding), SparseError);
  EXPECT_THROW(unpack_block(bytes.data(), 16, m.encoding), SparseError);
  // A coordinate count of 2^60.
  bytes[16 + 8 * 3 + 7] = 0x10;
  EXPECT_THROW(unpack_block(bytes.data(), bytes.size(), m.encoding), SparseError);
}

TEST(PeBlock, ABlockWithADecreasingPositionIsRefused) {
  const SparseMatrix m = build_dense(example(), 4, 4, parse_encoding("csr"));
  std::vector<std::uint8_t> bytes = pack_block(m);
  // Header: rows, cols, level 0 (pos, crd), level 1 (pos, crd), values = 7 × 8 bytes; level 1's
  // positions 0 2 2 3 5 (native 64-bit) follow: make pos[1][2] = 1 < 2.
  bytes[7 * 8 + 2 * 8] = 1;
  EXPECT_THROW(unpack_block(bytes.data(), bytes.size(), m.encoding), SparseError);
}

}  // namespace
}  // namespace treesim::sparse
