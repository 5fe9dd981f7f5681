// N:M pruning keeps the n largest magnitudes of every block of m columns, the lower column on ties.
#include "sim/sparse/prune.h"

#include <gtest/gtest.h>

namespace treesim::sparse {
namespace {

std::vector<std::tuple<std::uint64_t, std::uint64_t, double>> triples(const Coo& a) {
  std::vector<std::tuple<std::uint64_t, std::uint64_t, double>> out;
  for (const Triple& t : a.entries) out.emplace_back(t.row, t.col, t.value);
  return out;
}

TEST(PruneNOfM, KeepsTheTwoLargestMagnitudesOfEveryBlockOfFour) {
  // Row 0: block 0 holds 3, -7, 5, 1 → -7 and 5 stay; block 1 (cols 4-5) holds two: both stay.
  // Row 1: 2, -2, 2 in block 0 are a tie of magnitudes → the two lowest columns (0 and 1) stay.
  Coo a{
      2,
      6,
      {{0, 0, 3}, {0, 1, -7}, {0, 2, 5}, {0, 3, 1}, {0, 4, 9}, {0, 5, 8}, {1, 2, 2}, {1, 0, 2}, {1, 1, -2}}};
  EXPECT_EQ(prune_n_of_m(a, 2, 4), 3u);
  using T = std::tuple<std::uint64_t, std::uint64_t, double>;
  EXPECT_EQ(triples(a), (std::vector<T>{{0, 1, -7}, {0, 2, 5}, {0, 4, 9}, {0, 5, 8}, {1, 0, 2}, {1, 1, -2}}));
}

TEST(PruneNOfM, MatrixThatAlreadyFitsIsUnchanged) {
  Coo a{1, 8, {{0, 1, 4}, {0, 3, -1}, {0, 6, 2}}};
  const auto before = triples(a);
  EXPECT_EQ(prune_n_of_m(a, 2, 4), 0u);
  EXPECT_EQ(triples(a), before);
}

}  // namespace
}  // namespace treesim::sparse
