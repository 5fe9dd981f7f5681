// The block engine draws std::mt19937_64's sequence: for several seeds, over many refills, and
// through a standard distribution.
#include "sim/core/mt19937_64.h"

#include <gtest/gtest.h>

#include <random>

namespace treesim::core {
namespace {

TEST(Mt19937_64, SequenceEqualsStdEngineForSeveralSeeds) {
  for (std::uint64_t seed : {0ULL, 1ULL, 5489ULL, 1000003ULL * 7 + 3, ~0ULL}) {
    std::mt19937_64 want(seed);
    Mt19937_64 got(seed);
    for (int i = 0; i < 10 * 312 + 5; ++i) ASSERT_EQ(got(), want()) << "seed " << seed << ", draw " << i;
  }
}

TEST(Mt19937_64, DefaultSeedEqualsStdEngine) {
  std::mt19937_64 want;
  Mt19937_64 got;
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(got(), want()) << i;
}

TEST(Mt19937_64, StdDistributionDrawsTheSameValues) {
  std::mt19937_64 want(42);
  Mt19937_64 got(42);
  std::uniform_int_distribution<int> d(-128, 127);
  for (int i = 0; i < 2000; ++i) ASSERT_EQ(d(got), d(want)) << i;
}

}  // namespace
}  // namespace treesim::core
