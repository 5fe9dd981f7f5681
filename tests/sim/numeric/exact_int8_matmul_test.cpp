// The reference's raw int8 product equals a plain int64 loop: uint8 and int8 A, odd shapes, strided
// operands, and the longest K it accepts at the extreme codes (the sum just inside int32).
#include "sim/numeric/exact_int8_matmul.h"

#include <gtest/gtest.h>

#include <vector>

namespace treesim::numeric {
namespace {

void check(std::size_t m, std::size_t n, std::size_t k, bool a_signed) {
  const std::size_t lda = k + 3, ldb = n + 5;
  std::vector<std::uint8_t> a(m * lda);
  std::vector<std::int8_t> b(k * ldb);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint8_t>(i * 37 % 256);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::int8_t>(i * 91 % 256);
  std::vector<std::int32_t> c(m * n, -1);
  exact_int8_matmul(a.data(), a_signed, b.data(), c.data(), m, n, k, lda, ldb);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      std::int64_t sum = 0;
      for (std::size_t kk = 0; kk < k; ++kk) {
        const std::int64_t x = a_signed ? static_cast<std::int8_t>(a[i * lda + kk]) : a[i * lda + kk];
        sum += x * b[kk * ldb + j];
      }
      ASSERT_EQ(c[i * n + j], sum) << i << "," << j;
    }
}

TEST(ExactInt8Matmul, UnsignedAMatchesPlainProduct) { check(7, 33, 19, false); }
TEST(ExactInt8Matmul, SignedAMatchesPlainProduct) { check(5, 17, 64, true); }
TEST(ExactInt8Matmul, EmptyKGivesZeros) { check(3, 4, 0, false); }
TEST(ExactInt8Matmul, LongestKAtExtremeCodesStaysExact) {
  const std::size_t k = kExactInt8MatmulMaxK;
  std::vector<std::uint8_t> a(k, 255);
  std::vector<std::int8_t> b(k, -128);
  std::int32_t c = 0;
  exact_int8_matmul(a.data(), false, b.data(), &c, 1, 1, k, k, 1);
  EXPECT_EQ(c, -255LL * 128 * static_cast<std::int64_t>(k));
}

// oneDNN is opened at run time, so a build that has it must also find it: else --verify would fall
// back to the loop without a word.
TEST(ExactInt8Matmul, BuildWithOneDnnOpensIt) {
  if (!exact_int8_matmul_built_with_onednn()) GTEST_SKIP() << "built without oneDNN";
  EXPECT_NE(exact_int8_matmul_path(), ExactInt8MatmulPath::loop_without_onednn);
}

}  // namespace
}  // namespace treesim::numeric
