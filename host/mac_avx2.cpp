// The AVX2 kernel: the same packing idea as the VNNI one, with the codes held as int16 and
// multiplied in pairs by vpmaddwd (|a'·b'| ≤ 255·128, so a pair's sum fits int32 exactly).
#include <immintrin.h>

#include <cstring>

#include "host/mac_int8.h"

namespace treesim::host {
namespace {

#define TREESIM_AVX2 __attribute__((target("avx2")))

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

template <int R>
void row_block(const PackedA& a, const PackedB& b, std::uint8_t* c, bool accumulate, std::uint64_t i) {
  const std::uint64_t blocks = (b.n + 7) / 8;
  std::uint64_t jb = 0;
  for (; jb + 2 <= blocks; jb += 2) tile<R, 2>(a, b, c, accumulate, i, jb);
  if (jb < blocks) tile<R, 1>(a, b, c, accumulate, i, jb);
}

}  // namespace

void mac_avx2(const PackedA& a, const PackedB& b, std::uint8_t* c, bool accumulate) {
  std::uint64_t i = 0;
  for (; i + 4 <= a.m; i += 4) row_block<4>(a, b, c, accumulate, i);
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
