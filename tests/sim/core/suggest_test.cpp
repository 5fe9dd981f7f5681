#include "sim/core/suggest.h"

#include <gtest/gtest.h>

namespace treesim::core {
namespace suggest_test {

TEST(Suggest, EditDistanceCountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("m", "mm"), 1u);
  EXPECT_EQ(edit_distance("layout-a", "layot-a"), 1u);
  EXPECT_EQ(edit_distance("latency", "lantecy"), 2u);
  EXPECT_EQ(edit_distance("ab", "ba"), 1u);  // a swap of neighbours
  EXPECT_EQ(edit_distance("bytes_per_cycle", "bytes_per_cyle"), 1u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
}

TEST(Suggest, TheClosestCandidateWithinASlipIsNamedAndAFarWordGetsNone) {
  const std::vector<std::string> fields{"banked", "bytes", "bytes_per_cycle", "latency_cycles"};
  EXPECT_EQ(closest("bytes_per_cyle", fields), std::optional<std::string>("bytes_per_cycle"));
  EXPECT_EQ(closest("byte", fields), std::optional<std::string>("bytes"));
  EXPECT_EQ(closest("frequency", fields), std::nullopt);
  EXPECT_EQ(closest("bytes", fields), std::nullopt);  // not misspelt
  EXPECT_EQ(did_you_mean("--mm", {"--m", "--n", "--k"}), " (did you mean '--m'?)");
  EXPECT_EQ(did_you_mean("--zzzz", {"--m", "--n", "--k"}), "");
}

}  // namespace suggest_test
}  // namespace treesim::core
