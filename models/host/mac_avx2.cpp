// The AVX2 kernel: the same packing idea as the VNNI one, with the codes held as int16 and
// multiplied in pairs by vpmaddwd (|a'·b'| ≤ 255·128, so a pair's sum fits int32 exactly).
#include <immintrin.h>

#include <cstring>

#include "models/host/mac_int8.h"

namespace treesim::host {
namespace {

// Without pre-allocation scheduling: GCC hoists the broadcasts of a pass ahead of its multiplies and
// runs out of vector registers, spilling an accumulator whose add chain then goes through memory.
#define TREESIM_AVX2 __attribute__((target("avx2"), optimize("no-schedule-insns")))

// R rows × J blocks of 8 columns of C, starting at row i and column block jb.
template <int R, int J>
TREESIM_AVX2 void tile(const PackedA& a, const PackedB& b, std::uint8_t* c, bool accumulate, std::uint64_t i,
                       std::uint64_t jb) {
  const std::uint64_t kp = (a.k + 1) & ~std::uint64_t{1}, pairs = kp / 2, n = b.n;
  __m256i acc[R][J];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
    for (int j = 0; j < J; ++j) acc[r][j] = _mm256_setzero_si256();
  const std::uint8_t* arow = a.data.data() + i * kp * 2;
  const std::uint8_t* bblk = b.data.data() + jb * pairs * 32;
  for (std::uint64_t q = 0; q < pairs; ++q) {
    __m256i bv[J];
#pragma GCC unroll 8
    for (int j = 0; j < J; ++j)
      bv[j] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(bblk + (j * pairs + q) * 32));
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      std::int32_t pair;
      std::memcpy(&pair, arow + r * kp * 2 + q * 4, 4);
      const __m256i av = _mm256_set1_epi32(pair);
#pragma GCC unroll 8
      for (int j = 0; j < J; ++j) acc[r][j] = _mm256_add_epi32(acc[r][j], _mm256_madd_epi16(av, bv[j]));
    }
  }
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    const __m256i rf = _mm256_set1_epi32(static_cast<std::int32_t>(a.row_fix[i + r]));
    auto* crow = reinterpret_cast<int*>(c + (i + r) * n * 4);
#pragma GCC unroll 8
    for (int j = 0; j < J; ++j) {
      const std::uint64_t col = (jb + j) * 8;
      const auto cols = static_cast<int>(n - col < 8 ? n - col : 8);
      const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(cols), lane);
      __m256i v = _mm256_add_epi32(acc[r][j], rf);
      v = _mm256_add_epi32(v,
                           _mm256_maskload_epi32(reinterpret_cast<const int*>(b.col_fix.data() + col), mask));
      if (accumulate) v = _mm256_add_epi32(v, _mm256_maskload_epi32(crow + col, mask));
      _mm256_maskstore_epi32(crow + col, mask, v);
    }
  }
}

// A C at most 8 columns wide (the board's PE tiles are 32×8), rows in the vector lanes: per block
// of 8 rows, one accumulator per column, each pass reading 8 rows × 2 k of A (one vector, A's one
// stream) and broadcasting B's pair of each column (B is small and stays cached). The 8×8 block
// is transposed into C's rows at the end. Columns past n hold B's zero padding.
TREESIM_AVX2 void narrow_lanes(const PackedA& a, const PackedB& b, std::uint8_t* c, bool accumulate) {
  const std::uint64_t kp = (a.k + 1) & ~std::uint64_t{1}, pairs = kp / 2, n = b.n, m = a.m;
  const auto* bq = reinterpret_cast<const std::int32_t*>(b.data.data());
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), lane);
  const __m256i col_fix = _mm256_maskload_epi32(reinterpret_cast<const int*>(b.col_fix.data()), mask);
  for (std::uint64_t rb = 0; rb * 8 < m; ++rb) {
    const std::uint8_t* ap = a.data.data() + rb * pairs * 16;
    __m256i c0 = _mm256_setzero_si256(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0, c7 = c0;
    // The pass in assembly: GCC's allocation of eight accumulators rotates them through copies and
    // spills one, so that its add chain goes through memory (half the speed).
    const std::uint8_t* av_ptr = ap;
    const std::int32_t* b_ptr = bq;
    std::uint64_t left = pairs;
    __m256i av, p0, p1;
    if (left > 0)
      asm volatile(
          "1:\n\t"
          "vpmovzxbw (%[a]), %[av]\n\t"
          "vpbroadcastd 0(%[b]), %[t0]\n\t"
          "vpbroadcastd 4(%[b]), %[t1]\n\t"
          "vpmaddwd %[av], %[t0], %[t0]\n\t"
          "vpmaddwd %[av], %[t1], %[t1]\n\t"
          "vpaddd %[t0], %[c0], %[c0]\n\t"
          "vpaddd %[t1], %[c1], %[c1]\n\t"
          "vpbroadcastd 8(%[b]), %[t0]\n\t"
          "vpbroadcastd 12(%[b]), %[t1]\n\t"
          "vpmaddwd %[av], %[t0], %[t0]\n\t"
          "vpmaddwd %[av], %[t1], %[t1]\n\t"
          "vpaddd %[t0], %[c2], %[c2]\n\t"
          "vpaddd %[t1], %[c3], %[c3]\n\t"
          "vpbroadcastd 16(%[b]), %[t0]\n\t"
          "vpbroadcastd 20(%[b]), %[t1]\n\t"
          "vpmaddwd %[av], %[t0], %[t0]\n\t"
          "vpmaddwd %[av], %[t1], %[t1]\n\t"
          "vpaddd %[t0], %[c4], %[c4]\n\t"
          "vpaddd %[t1], %[c5], %[c5]\n\t"
          "vpbroadcastd 24(%[b]), %[t0]\n\t"
          "vpbroadcastd 28(%[b]), %[t1]\n\t"
          "vpmaddwd %[av], %[t0], %[t0]\n\t"
          "vpmaddwd %[av], %[t1], %[t1]\n\t"
          "vpaddd %[t0], %[c6], %[c6]\n\t"
          "vpaddd %[t1], %[c7], %[c7]\n\t"
          "add $16, %[a]\n\t"
          "add $32, %[b]\n\t"
          "dec %[n]\n\t"
          "jnz 1b"
          : [c0] "+x"(c0), [c1] "+x"(c1), [c2] "+x"(c2), [c3] "+x"(c3), [c4] "+x"(c4), [c5] "+x"(c5),
            [c6] "+x"(c6), [c7] "+x"(c7), [a] "+r"(av_ptr), [b] "+r"(b_ptr), [n] "+r"(left), [av] "=&x"(av),
            [t0] "=&x"(p0), [t1] "=&x"(p1)
          :
          : "memory", "cc");
    // Columns in the lanes → rows in the lanes.
    const __m256i t0 = _mm256_unpacklo_epi32(c0, c1), t1 = _mm256_unpackhi_epi32(c0, c1);
    const __m256i t2 = _mm256_unpacklo_epi32(c2, c3), t3 = _mm256_unpackhi_epi32(c2, c3);
    const __m256i t4 = _mm256_unpacklo_epi32(c4, c5), t5 = _mm256_unpackhi_epi32(c4, c5);
    const __m256i t6 = _mm256_unpacklo_epi32(c6, c7), t7 = _mm256_unpackhi_epi32(c6, c7);
    const __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
    const __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
    const __m256i u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);
    const __m256i u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);
    const __m256i rows[8] = {
        _mm256_permute2x128_si256(u0, u4, 0x20), _mm256_permute2x128_si256(u1, u5, 0x20),
        _mm256_permute2x128_si256(u2, u6, 0x20), _mm256_permute2x128_si256(u3, u7, 0x20),
        _mm256_permute2x128_si256(u0, u4, 0x31), _mm256_permute2x128_si256(u1, u5, 0x31),
        _mm256_permute2x128_si256(u2, u6, 0x31), _mm256_permute2x128_si256(u3, u7, 0x31)};
    const std::uint64_t count = m - rb * 8 < 8 ? m - rb * 8 : 8;
    for (std::uint64_t r = 0; r < count; ++r) {
      const std::uint64_t i = rb * 8 + r;
      auto* crow = reinterpret_cast<int*>(c + i * n * 4);
      __m256i v = _mm256_add_epi32(rows[r], _mm256_set1_epi32(static_cast<std::int32_t>(a.row_fix[i])));
      v = _mm256_add_epi32(v, col_fix);
      if (accumulate) v = _mm256_add_epi32(v, _mm256_maskload_epi32(crow, mask));
      _mm256_maskstore_epi32(crow, mask, v);
    }
  }
}

// Four rows × 16 columns of C: two B vectors feed four rows each; eight accumulators in variables.
TREESIM_AVX2 void wide_rows4(const PackedA& a, const PackedB& b, std::uint8_t* c, bool accumulate,
                             std::uint64_t i, std::uint64_t jb) {
  const std::uint64_t kp = (a.k + 1) & ~std::uint64_t{1}, pairs = kp / 2, n = b.n;
  const auto* a0 = reinterpret_cast<const std::int32_t*>(a.data.data() + i * kp * 2);
  const std::int32_t *a1 = a0 + pairs, *a2 = a1 + pairs, *a3 = a2 + pairs;
  const auto* b0 = reinterpret_cast<const __m256i*>(b.data.data() + jb * pairs * 32);
  const __m256i* b1 = b0 + pairs;
  __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00,
          c31 = c00;
#define TREESIM_ROW(r)                                              \
  {                                                                 \
    const __m256i av = _mm256_set1_epi32(a##r[q]);                  \
    c##r##0 = _mm256_add_epi32(c##r##0, _mm256_madd_epi16(av, v0)); \
    c##r##1 = _mm256_add_epi32(c##r##1, _mm256_madd_epi16(av, v1)); \
  }
  for (std::uint64_t q = 0; q < pairs; ++q) {
    const __m256i v0 = _mm256_loadu_si256(b0 + q), v1 = _mm256_loadu_si256(b1 + q);
    TREESIM_ROW(0);
    TREESIM_ROW(1);
    TREESIM_ROW(2);
    TREESIM_ROW(3);
  }
#undef TREESIM_ROW
  const __m256i sums[4][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}};
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (int r = 0; r < 4; ++r) {
    const __m256i rf = _mm256_set1_epi32(static_cast<std::int32_t>(a.row_fix[i + r]));
    auto* crow = reinterpret_cast<int*>(c + (i + r) * n * 4);
    for (int j = 0; j < 2; ++j) {
      const std::uint64_t col = (jb + j) * 8;
      const auto cols = static_cast<int>(n - col < 8 ? n - col : 8);
      const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(cols), lane);
      __m256i v = _mm256_add_epi32(sums[r][j], rf);
      v = _mm256_add_epi32(v,
                           _mm256_maskload_epi32(reinterpret_cast<const int*>(b.col_fix.data() + col), mask));
      if (accumulate) v = _mm256_add_epi32(v, _mm256_maskload_epi32(crow + col, mask));
      _mm256_maskstore_epi32(crow + col, mask, v);
    }
  }
}

template <int R>
void row_block(const PackedA& a, const PackedB& b, std::uint8_t* c, bool accumulate, std::uint64_t i) {
  const std::uint64_t blocks = (b.n + 7) / 8;
  std::uint64_t jb = 0;
  for (; jb + 2 <= blocks; jb += 2) tile<R, 2>(a, b, c, accumulate, i, jb);
  if (jb < blocks) tile<R, 1>(a, b, c, accumulate, i, jb);
}

}  // namespace

void mac_avx2(const PackedA& a, const PackedB& b, std::uint8_t* c, bool accumulate) {
  if (a.by_row_quads) return narrow_lanes(a, b, c, accumulate);
  std::uint64_t i = 0;
  for (; i + 4 <= a.m; i += 4) {
    const std::uint64_t blocks = (b.n + 7) / 8;
    std::uint64_t jb = 0;
    for (; jb + 2 <= blocks; jb += 2) wide_rows4(a, b, c, accumulate, i, jb);
    if (jb < blocks) tile<4, 1>(a, b, c, accumulate, i, jb);
  }
  switch (a.m - i) {
    case 3:
      row_block<3>(a, b, c, accumulate, i);
      break;
    case 2:
      row_block<2>(a, b, c, accumulate, i);
      break;
    case 1:
      row_block<1>(a, b, c, accumulate, i);
      break;
    default:
      break;
  }
}

}  // namespace treesim::host
