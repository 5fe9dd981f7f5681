#include "models/mac_int8.h"

#include <immintrin.h>

#include <cstring>

namespace treesim::models {
namespace {

constexpr std::uint64_t round4(std::uint64_t v) { return (v + 3) & ~std::uint64_t{3}; }

#define TREESIM_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))

// R rows × J blocks of 16 columns of C, starting at row i and column block jb.
template <int R, int J>
TREESIM_VNNI void tile(const PackedA& a, const PackedB& b, std::uint8_t* c, bool accumulate, std::uint64_t i,
                       std::uint64_t jb, const std::uint32_t* row_fix, const std::uint32_t* col_fix) {
  const std::uint64_t kp = round4(a.k), quads = kp / 4, n = b.n;
  __m512i acc[R][J];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
    for (int j = 0; j < J; ++j) acc[r][j] = _mm512_setzero_si512();
  const std::uint8_t* arow = a.data.data() + i * kp;
  const std::uint8_t* bblk = b.data.data() + jb * quads * 64;
  for (std::uint64_t q = 0; q < quads; ++q) {
    __m512i bv[J];
#pragma GCC unroll 8
    for (int j = 0; j < J; ++j) bv[j] = _mm512_loadu_si512(bblk + (j * quads + q) * 64);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      std::int32_t quad;
      std::memcpy(&quad, arow + r * kp + q * 4, 4);
      const __m512i av = _mm512_set1_epi32(quad);
#pragma GCC unroll 8
      for (int j = 0; j < J; ++j) acc[r][j] = _mm512_dpbusd_epi32(acc[r][j], av, bv[j]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
    const __m512i rf = _mm512_set1_epi32(static_cast<std::int32_t>(row_fix[i + r]));
    std::uint8_t* crow = c + (i + r) * n * 4;
#pragma GCC unroll 8
    for (int j = 0; j < J; ++j) {
      const std::uint64_t col = (jb + j) * 16;
      const std::uint64_t cols = n - col < 16 ? n - col : 16;
      const __mmask16 mask = static_cast<__mmask16>((1u << cols) - 1u);
      __m512i v = _mm512_add_epi32(acc[r][j], rf);
      v = _mm512_add_epi32(v, _mm512_maskz_loadu_epi32(mask, col_fix + col));
      if (accumulate) v = _mm512_add_epi32(v, _mm512_maskz_loadu_epi32(mask, crow + col * 4));
      _mm512_mask_storeu_epi32(crow + col * 4, mask, v);
    }
  }
}

template <int R>
void row_block(const PackedA& a, const PackedB& b, std::uint8_t* c, bool accumulate, std::uint64_t i,
               const std::uint32_t* row_fix, const std::uint32_t* col_fix) {
  const std::uint64_t blocks = (b.n + 15) / 16;
  std::uint64_t jb = 0;
  for (; jb + 4 <= blocks; jb += 4) tile<R, 4>(a, b, c, accumulate, i, jb, row_fix, col_fix);
  switch (blocks - jb) {
    case 3:
      tile<R, 3>(a, b, c, accumulate, i, jb, row_fix, col_fix);
      break;
    case 2:
      tile<R, 2>(a, b, c, accumulate, i, jb, row_fix, col_fix);
      break;
    case 1:
      tile<R, 1>(a, b, c, accumulate, i, jb, row_fix, col_fix);
      break;
    default:
      break;
  }
}

}  // namespace

void mac_vnni(const PackedA& a, const PackedB& b, std::uint8_t* c, bool accumulate) {
  const std::uint64_t m = a.m;
  const std::uint32_t* row_fix = a.row_fix.data();
  const std::uint32_t* col_fix = b.col_fix.data();
  std::uint64_t i = 0;
  for (; i + 6 <= m; i += 6) row_block<6>(a, b, c, accumulate, i, row_fix, col_fix);
  switch (m - i) {
    case 5:
      row_block<5>(a, b, c, accumulate, i, row_fix, col_fix);
      break;
    case 4:
      row_block<4>(a, b, c, accumulate, i, row_fix, col_fix);
      break;
    case 3:
      row_block<3>(a, b, c, accumulate, i, row_fix, col_fix);
      break;
    case 2:
      row_block<2>(a, b, c, accumulate, i, row_fix, col_fix);
      break;
    case 1:
      row_block<1>(a, b, c, accumulate, i, row_fix, col_fix);
      break;
    default:
      break;
  }
}

}  // namespace treesim::models
