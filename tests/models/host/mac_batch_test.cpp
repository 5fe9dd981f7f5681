// A MAC instruction over many PEs: every PE's C is its own product, whether the PEs are split over
// host threads or not, and a PE whose B is shared reads its source PE's bytes.
#include "models/host/mac_batch.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>

namespace treesim::host {
namespace {

constexpr std::uint64_t kLm = 64 * 1024, kA = 0, kB = 16384, kC = 32768;

struct Pes {
  std::vector<std::uint8_t> arena;
  LmView pes;
  explicit Pes(std::size_t n) : arena(n * kLm), pes{arena.data(), kLm, static_cast<std::uint32_t>(n)} {}
};

// C of PE `p` (m×n) from its own A and the B of PE `b_from`, as a plain int64 product wrapped to int32.
std::vector<std::int32_t> expected(const Pes& s, std::size_t p, std::size_t b_from, const MacShape& op) {
  const std::uint8_t* a = s.pes.lm(p) + op.a;
  const std::uint8_t* b = s.pes.lm(b_from) + op.b;
  std::vector<std::int32_t> c(op.m * op.n);
  for (std::uint64_t i = 0; i < op.m; ++i)
    for (std::uint64_t j = 0; j < op.n; ++j) {
      std::int64_t sum = 0;
      for (std::uint64_t k = 0; k < op.k; ++k)
        sum += (std::int64_t{a[i * op.k + k]} - op.a_zero) *
               (std::int64_t{static_cast<std::int8_t>(b[k * op.n + j])});
      c[i * op.n + j] =
          static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(sum)));
    }
  return c;
}

void check(std::size_t pes, std::uint64_t m, std::uint64_t n, std::uint64_t k, bool share_b) {
  const std::optional<MacIsa> isa = fastest_mac_isa();
  if (!isa) GTEST_SKIP() << "this CPU has neither AVX2 nor AVX-512 VNNI";
  Pes s(pes);
  for (std::size_t p = 0; p < pes; ++p)
    for (std::uint64_t i = 0; i < kB; ++i) s.pes.lm(p)[i] = static_cast<std::uint8_t>((i * 13 + p * 7) % 251);
  for (std::size_t p = 0; p < pes; ++p)
    for (std::uint64_t i = kB; i < kC; ++i) s.pes.lm(p)[i] = static_cast<std::uint8_t>((i * 5 + p * 3) % 253);
  LmReplicas shared;
  std::vector<std::uint32_t> source(pes);
  for (std::size_t p = 0; p < pes; ++p) source[p] = share_b && p % 2 ? 0 : static_cast<std::uint32_t>(p);
  if (share_b) shared.add(kB, kB + k * n, source);
  MacShape op;
  op.a = kA, op.b = kB, op.c = kC, op.m = m, op.n = n, op.k = k;
  op.a_signed = false, op.a_zero = 128, op.b_signed = true, op.b_zero = 0;
  LanePool pool(4);  // 4 even on a 1-core host
  ASSERT_EQ(MacBatch(*isa).run(op, s.pes, shared, pool), nullptr);
  for (std::size_t p = 0; p < pes; ++p) {
    std::vector<std::int32_t> got(m * n);
    std::memcpy(got.data(), s.pes.lm(p) + kC, got.size() * 4);
    ASSERT_EQ(got, expected(s, p, source[p], op)) << "PE " << p;
  }
}

TEST(MacBatch, SmallInstructionOnOneThreadGivesEveryPeItsProduct) { check(4, 3, 20, 9, false); }
// 64 × 64 × 64 × 256 MACs: 4 threads of 64 PEs each.
static_assert(64 * 64 * 64 * 64 >= MacBatch::kMacsPerThread);
TEST(MacBatch, LargeInstructionSplitOverThreadsGivesEveryPeItsProduct) { check(64, 64, 64, 256, false); }
TEST(MacBatch, SharedBIsReadFromItsSourcePe) { check(64, 64, 64, 256, true); }

}  // namespace
}  // namespace treesim::host
