// The host MAC kernel equals a plain int64 product, wrapped to int32, for narrow and wide C and for
// K longer than one accumulation chunk.
#include "models/host/mac_kernel.h"

#include <gtest/gtest.h>

#include <vector>

namespace treesim::host {
namespace {

void check(std::uint64_t m, std::uint64_t n, std::uint64_t k, bool accumulate) {
  std::vector<std::int16_t> a(m * k), b(k * n);
  for (std::uint64_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::int16_t>((i * 37 % 511) - 255);
  for (std::uint64_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::int16_t>((i * 91 % 511) - 255);
  std::vector<std::int32_t> c(m * n, 123456789);
  std::vector<std::int32_t> expect(m * n);
  for (std::uint64_t i = 0; i < m; ++i)
    for (std::uint64_t j = 0; j < n; ++j) {
      std::int64_t sum = accumulate ? 123456789 : 0;
      for (std::uint64_t kk = 0; kk < k; ++kk) sum += std::int64_t{a[i * k + kk]} * b[kk * n + j];
      expect[i * n + j] =
          static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(sum)));
    }
  mac_int16(a.data(), b.data(), c.data(), m, n, k, accumulate);
  EXPECT_EQ(c, expect) << m << "×" << n << "×" << k;
}

TEST(MacKernel, NarrowTileMatchesPlainProduct) { check(5, 3, 129, false); }
TEST(MacKernel, WideTileMatchesPlainProduct) { check(3, 100, 77, true); }
TEST(MacKernel, LongKWrapsLikeAnInt32Accumulator) {
  check(2, 2, 70000, true);    // narrow path, several K chunks, beyond int32
  check(1, 40, 70000, false);  // wide path, several K chunks
}

}  // namespace
}  // namespace treesim::host
