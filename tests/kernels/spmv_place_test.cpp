// The sparse placement's search (place_sparse): on skewed matrices and LMs too small for one pass,
// what it finds fits, and it is the fewest passes of its kind — one row block fewer with the same
// column tiles does not fit, and half the tiles fit in no fewer passes with any row blocks.
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/spmv/spmv.h"
#include "tests/configs.h"

namespace treesim::kernels {
namespace spmv_place_test {

// rows × cols with row r holding about nnz · (r + 1)^-1 / H entries (a power law: a few long rows),
// in distinct columns from a fixed generator.
sparse::Coo power_law(std::uint64_t rows, std::uint64_t cols, std::uint64_t nnz) {
  double h = 0;
  for (std::uint64_t r = 0; r < rows; ++r) h += 1.0 / static_cast<double>(r + 1);
  sparse::Coo a{rows, cols, {}};
  std::uint64_t x = 12345;
  for (std::uint64_t r = 0; r < rows; ++r) {
    const auto want = std::max<std::uint64_t>(
        1, std::min<std::uint64_t>(
               cols, static_cast<std::uint64_t>(static_cast<double>(nnz) / h / static_cast<double>(r + 1))));
    std::vector<bool> used(cols, false);
    for (std::uint64_t k = 0; k < want;) {
      x = x * 6364136223846793005u + 1442695040888963407u;
      const std::uint64_t c = (x >> 33) % cols;
      if (used[c]) continue;
      used[c] = true, ++k;
    }
    for (std::uint64_t c = 0; c < cols; ++c)
      if (used[c]) a.entries.push_back({r, c, static_cast<double>(c % 7 + 1)});
  }
  return a;
}

SparseProblem problem(const std::string& encoding, sparse::Partition partition, std::uint64_t n) {
  SparseProblem p;
  p.a = power_law(100, 600, 1200);
  p.encoding = sparse::parse_encoding(encoding);
  p.encoding_name = encoding;
  p.partition = partition;
  p.spmm = n > 1, p.n = n;
  p.b.assign(p.a.cols * n, 1);
  return p;
}

// Returns the placement's row blocks and tiles.
std::pair<std::uint64_t, std::uint64_t> expect_fewest(const SparseProblem& p,
                                                      const machine::MachineConfig& m) {
  const SparseChoice c = default_choice(p);
  const SparsePlacement s = place_sparse(p, c, m);
  const std::uint64_t k = s.choice.row_blocks, t = s.choice.col_tiles;
  EXPECT_LE(s.lm_end, m.lm_bytes()) << k << " row blocks × " << t << " tiles";
  if (k > 1) {
    SparseChoice fewer = c;
    fewer.row_blocks = k - 1, fewer.col_tiles = t;
    EXPECT_GT(place_sparse(p, fewer, m).lm_end, m.lm_bytes()) << k - 1 << " row blocks × " << t << " tiles";
  }
  if (t > 1) {  // half the tiles: nothing fits, or only in as many passes or more
    SparseChoice half = c;
    half.col_tiles = t / 2;
    for (half.row_blocks = 1; half.row_blocks <= most_row_blocks(p, c, m); ++half.row_blocks) {
      const SparsePlacement h = place_sparse(p, half, m);
      if (h.lm_end > m.lm_bytes()) continue;
      EXPECT_GE(h.passes, s.passes) << half.row_blocks << " row blocks × " << t / 2 << " tiles";
      break;
    }
  }
  return {k, t};
}

TEST(SparsePlace, FindsTheFewestPassesOfRowBlocksAndTilesThatFit) {
  int with_blocks = 0, with_tiles = 0;  // the cases must take both kinds of passes
  for (const char* lm : {"1KiB", "512"}) {
    machine::MachineConfig m = testing::mini();
    m.levels.back().memory_bytes =
        std::stoull(lm) * (std::string(lm).find("KiB") != std::string::npos ? 1024 : 1);
    for (const char* e : {"csr", "dcsr", "bsr2x2"})
      for (auto part : {sparse::Partition::kRows, sparse::Partition::kNnz, sparse::Partition::k2d})
        for (std::uint64_t n : {1, 4}) {
          SCOPED_TRACE(::testing::Message()
                       << lm << " " << e << " " << sparse::partition_name(part) << " n " << n);
          const auto [k, t] = expect_fewest(problem(e, part, n), m);
          with_blocks += k > 1, with_tiles += t > 1;
        }
  }
  EXPECT_GT(with_blocks, 5);
  EXPECT_GT(with_tiles, 5);
}

// A row longer than the LM in a matrix of fewer rows than PEs (one row block) with a bias: the
// tiles are the fewest that fit (the search once priced the bias's second buffer that one row
// block does not have, and took twice the tiles).
TEST(SparsePlace, ALongRowWithABiasTakesTheFewestTiles) {
  SparseProblem p;
  p.a = sparse::Coo{32, 4096, {}};
  for (std::uint64_t c = 0; c < 4096; c += 2) p.a.entries.push_back({0, c, 3.0});
  for (std::uint64_t r = 1; r < 32; ++r) p.a.entries.push_back({r, r, 1.0});
  p.encoding = sparse::parse_encoding("csr");
  p.encoding_name = "csr";
  p.b.assign(4096, 1);
  p.bias.assign(32, 5);
  for (const char* lm : {"424", "856", "1560", "2840"}) {
    machine::MachineConfig m = testing::mini();
    m.levels.back().memory_bytes = std::stoull(lm);
    SCOPED_TRACE(lm);
    const auto [k, t] = expect_fewest(p, m);
    EXPECT_EQ(k, 1u);
    EXPECT_GT(t, 1u);
  }
}

// Column tiles cut only the parts that need them: a long row on one PE takes several passes in
// which that PE alone walks, each of its tiles at most the heaviest part's entries / col_tiles
// (whole column groups), while every other PE's part stays whole in the first pass.
TEST(SparsePlace, ColumnTilesCutOnlyTheHeavyParts) {
  SparseProblem p;
  p.a = sparse::Coo{32, 4096, {}};
  for (std::uint64_t c = 0; c < 4096; c += 2) p.a.entries.push_back({5, c, 3.0});
  for (std::uint64_t r = 0; r < 32; ++r) p.a.entries.push_back({r, 2 * r + 1, 1.0});
  p.encoding = sparse::parse_encoding("csr");
  p.encoding_name = "csr";
  p.b.assign(4096, 1);
  machine::MachineConfig m = testing::mini();
  m.levels.back().memory_bytes = 856;
  const SparsePlacement s = place_sparse(p, default_choice(p), m);
  ASSERT_LE(s.lm_end, m.lm_bytes());
  ASSERT_EQ(s.block_passes.size(), 1u);
  ASSERT_GT(s.passes, 1u);
  EXPECT_EQ(s.share_begin[1], s.pes) << "the first pass has every PE's share";
  const std::uint64_t heaviest = 2048 + 1, cap = (heaviest + s.choice.col_tiles - 1) / s.choice.col_tiles;
  std::uint64_t row5 = 0;
  for (std::uint64_t j = 0; j < s.passes; ++j)
    for (std::uint64_t i = s.share_begin[j]; i < s.share_begin[j + 1]; ++i) {
      const PeShare& share = s.shares[i];
      if (j > 0) {
        EXPECT_EQ(share.pe, 5u) << "pass " << j;
      }
      if (share.pe != 5) {
        EXPECT_EQ(share.work.entries, 1u) << "PE " << share.pe;
        continue;
      }
      EXPECT_LE(share.work.entries, cap) << "pass " << j;
      row5 += share.work.entries;
    }
  EXPECT_EQ(row5, heaviest);
  EXPECT_EQ(s.shares.size(), s.pes + s.passes - 1);
}

}  // namespace spmv_place_test
}  // namespace treesim::kernels
