// Both fast kernels (VNNI and AVX2, zero points folded with row and column sums) equal a plain
// int64 product of the operands minus their zero points, wrapped to int32, for every signedness of
// A and B, tile tails in both dimensions, K not a multiple of the packing group, and sums beyond
// int32.
#include "models/host/mac_int8.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace treesim::host {
namespace {

struct Case {
  std::uint64_t m, n, k;
  bool a_signed, b_signed;
  std::int32_t za, zb;
  bool accumulate;
  int b_fill = -1;  // every B byte, or -1 for varied bytes
};

void check_on(MacIsa isa, const Case& t) {
  std::vector<std::uint8_t> a(t.m * t.k), b(t.k * t.n);
  for (std::uint64_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint8_t>(i * 37 % 251 + (i % 3) * 2);
  for (std::uint64_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<std::uint8_t>(t.b_fill >= 0 ? t.b_fill : i * 91 % 253 + (i % 5));
  auto value = [](std::uint8_t v, bool s) {
    return s ? std::int64_t{static_cast<std::int8_t>(v)} : std::int64_t{v};
  };
  const std::int32_t before = -123456789;
  std::vector<std::int32_t> expect(t.m * t.n);
  for (std::uint64_t i = 0; i < t.m; ++i)
    for (std::uint64_t j = 0; j < t.n; ++j) {
      std::int64_t sum = t.accumulate ? before : 0;
      for (std::uint64_t kk = 0; kk < t.k; ++kk)
        sum += (value(a[i * t.k + kk], t.a_signed) - t.za) * (value(b[kk * t.n + j], t.b_signed) - t.zb);
      expect[i * t.n + j] =
          static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(sum)));
    }
  // C unaligned, with a guard word after it that must stay untouched.
  std::vector<std::uint8_t> c(1 + (t.m * t.n + 1) * 4);
  for (std::uint64_t i = 0; i < t.m * t.n + 1; ++i) std::memcpy(c.data() + 1 + i * 4, &before, 4);
  PackedA pa;
  PackedB pb;
  const Int8Operand ao{a.data(), t.a_signed, t.za}, bo{b.data(), t.b_signed, t.zb};
  pack_a(isa, ao, t.m, t.k, t.n, folded_zero_b(bo), pa);
  pack_b(isa, bo, t.k, t.n, folded_zero_a(ao), pb);
  mac_packed(isa, pa, pb, c.data() + 1, t.accumulate);
  std::vector<std::int32_t> got(t.m * t.n + 1);
  std::memcpy(got.data(), c.data() + 1, got.size() * 4);
  EXPECT_EQ(got.back(), before) << "wrote past C";
  got.pop_back();
  EXPECT_EQ(got, expect) << t.m << "×" << t.n << "×" << t.k;
}

class MacInt8 : public ::testing::TestWithParam<MacIsa> {
 protected:
  void check(const Case& t) {
    if (!mac_isa_available(GetParam())) GTEST_SKIP() << "this CPU cannot run the kernel";
    check_on(GetParam(), t);
  }
};

TEST_P(MacInt8, Uint8ATimesInt8BMatchesPlainProduct) { check({7, 70, 33, false, true, 128, 0, false}); }
TEST_P(MacInt8, Int8ATimesUint8BMatchesPlainProduct) { check({13, 17, 9, true, false, -5, 200, true}); }
TEST_P(MacInt8, BothSignedWithZeroPointsMatchesPlainProduct) {
  check({6, 64, 64, true, true, 127, -128, true});
}
TEST_P(MacInt8, BothUnsignedMatchesPlainProduct) { check({1, 1, 1, false, false, 255, 255, false}); }
TEST_P(MacInt8, LongKWrapsLikeAnInt32Accumulator) { check({2, 3, 70001, false, false, 0, 0, true}); }
// The VNNI packing sums B's columns in int16 lanes for 256 rows at a time: the extremes over many
// rows must not wrap them.
TEST_P(MacInt8, ExtremeBColumnsOverManyRowsMatchPlainProduct) {
  check({5, 33, 1001, false, true, 3, 0, false, 0x80});
  check({5, 33, 1001, false, true, 3, 0, false, 0x7f});
  check({4, 17, 515, true, false, 0, 255, true, 0xff});
}
// Below 16 columns the VNNI kernel puts A's rows in the vector lanes (A packed by row quads).
TEST_P(MacInt8, NarrowCOfEveryWidthMatchesPlainProduct) {
  for (std::uint64_t n = 1; n < 16; ++n) {
    check({33, n, 37, true, false, 3, 200, n % 2 == 0});
    check({16, n, 8, false, true, 128, 0, n % 2 == 1});
  }
}
TEST_P(MacInt8, EmptyKLeavesZeroOrTheAccumulator) {
  check({3, 5, 0, false, true, 7, 3, true});
  check({3, 5, 0, false, true, 7, 3, false});
}

INSTANTIATE_TEST_SUITE_P(Kernels, MacInt8, ::testing::Values(MacIsa::kAvx512Vnni, MacIsa::kAvx2),
                         [](const auto& info) {
                           return info.param == MacIsa::kAvx2 ? "Avx2" : "Avx512Vnni";
                         });

}  // namespace
}  // namespace treesim::host
