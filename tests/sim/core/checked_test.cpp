#include "sim/core/checked.h"

#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace treesim::core {
namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

TEST(CheckedAdd, SumsThatFit) {
  EXPECT_EQ(checked_add(2, 3), 5u);
  EXPECT_EQ(checked_add(kMax - 1, 1), kMax);
}

TEST(CheckedAdd, ReportsOverflow) {
  EXPECT_FALSE(checked_add(kMax, 1));
  EXPECT_FALSE(checked_add(1ull << 63, 1ull << 63));
}

TEST(CheckedMul, ProductsThatFit) {
  EXPECT_EQ(checked_mul(0, kMax), 0u);
  EXPECT_EQ(checked_mul(kMax, 1), kMax);
  EXPECT_EQ(checked_mul(1ull << 32, (1ull << 32) - 1), (1ull << 32) * ((1ull << 32) - 1));
}

TEST(CheckedMul, ReportsOverflow) {
  EXPECT_FALSE(checked_mul(1ull << 32, 1ull << 32));  // 2^64 would wrap to 0
  EXPECT_FALSE(checked_mul(kMax, 2));
}

TEST(CheckedProduct, EmptyRangeIsOne) { EXPECT_EQ(checked_product(std::vector<std::uint64_t>{}), 1u); }

TEST(CheckedProduct, FanOutsThatWrapTo0AreReported) {
  // Four fan-outs of 2^16 multiply to 2^64, which a plain product wraps to 0.
  EXPECT_FALSE(checked_product({1ull << 16, 1ull << 16, 1ull << 16, 1ull << 16}));
  EXPECT_EQ(checked_product({1ull << 16, 1ull << 16, 1ull << 16, (1ull << 16) - 1}),
            (1ull << 48) * ((1ull << 16) - 1));
}

TEST(CheckedProduct, AZeroMakesTheExactProductZero) { EXPECT_EQ(checked_product({kMax, kMax, 0}), 0u); }

TEST(CheckedSum, ReportsOverflow) {
  EXPECT_EQ(checked_sum(std::vector<std::uint64_t>{1, 2, 3}), 6u);
  EXPECT_FALSE(checked_sum(std::vector<std::uint64_t>{kMax, 1}));
}

TEST(RangeFits, OffsetPlusLengthDoesNotWrap) {
  EXPECT_TRUE(range_fits(0, 16, 16));
  EXPECT_TRUE(range_fits(16, 0, 16));
  EXPECT_FALSE(range_fits(8, 9, 16));
  EXPECT_FALSE(range_fits(kMax, 2, 16));  // kMax + 2 wraps to 1, which a naive check accepts
  EXPECT_FALSE(range_fits(17, 0, 16));
}

}  // namespace
}  // namespace treesim::core
