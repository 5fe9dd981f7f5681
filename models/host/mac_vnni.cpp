#include "models/host/mac_int8.h"

#include <immintrin.h>

#include <cstring>
#include <utility>

namespace treesim::host {
namespace {

constexpr std::uint64_t round4(std::uint64_t v) { return (v + 3) & ~std::uint64_t{3}; }

#define TREESIM_VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))

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

// Narrow C (N < 16 columns): the lanes hold 16 rows of A (packed by row quads) and each column's
// quad of B is broadcast, so no lane is idle; C is written back transposed.
template <int N>
TREESIM_VNNI void narrow(const PackedA& a, const PackedB& b, std::uint8_t* c, bool accumulate) {
  const std::uint64_t quads = round4(a.k) / 4, m = a.m;
  const std::uint8_t* bq = b.data.data();  // one block of 16 columns: column j's quad q at (16q + j)·4
  alignas(64) std::int32_t out[N][16];
  for (std::uint64_t rb = 0; rb * 16 < m; ++rb) {
    __m512i acc[N];
#pragma GCC unroll 16
    for (int j = 0; j < N; ++j) acc[j] = _mm512_setzero_si512();
    const std::uint8_t* ablk = a.data.data() + rb * quads * 64;
    for (std::uint64_t q = 0; q < quads; ++q) {
      const __m512i av = _mm512_loadu_si512(ablk + q * 64);
#pragma GCC unroll 16
      for (int j = 0; j < N; ++j) {
        std::int32_t quad;
        std::memcpy(&quad, bq + (q * 16 + j) * 4, 4);
        acc[j] = _mm512_dpbusd_epi32(acc[j], av, _mm512_set1_epi32(quad));
      }
    }
    const std::uint64_t rows = m - rb * 16 < 16 ? m - rb * 16 : 16;
    const __m512i rf =
        _mm512_maskz_loadu_epi32(static_cast<__mmask16>((1u << rows) - 1u), a.row_fix.data() + rb * 16);
#pragma GCC unroll 16
    for (int j = 0; j < N; ++j)
      _mm512_store_si512(out[j],
                         _mm512_add_epi32(_mm512_add_epi32(acc[j], rf),
                                          _mm512_set1_epi32(static_cast<std::int32_t>(b.col_fix[j]))));
    for (std::uint64_t i = 0; i < rows; ++i) {
      std::uint8_t* crow = c + (rb * 16 + i) * N * 4;
      for (int j = 0; j < N; ++j) {
        std::uint32_t v = static_cast<std::uint32_t>(out[j][i]);
        if (accumulate) {
          std::uint32_t old;
          std::memcpy(&old, crow + j * 4, 4);
          v += old;
        }
        std::memcpy(crow + j * 4, &v, 4);
      }
    }
  }
}

template <int... Ns>
void narrow_for(std::uint64_t n, const PackedA& a, const PackedB& b, std::uint8_t* c, bool accumulate,
                std::integer_sequence<int, Ns...>) {
  ((n == static_cast<std::uint64_t>(Ns) ? narrow<Ns>(a, b, c, accumulate) : void()), ...);
}

}  // namespace

// Per block of 16 columns and group of 4 rows, 64 bytes holding column j's 4 values at 4j..4j+3:
// four 16-byte rows (a narrow block's by masked loads) interleave by bytes, then by 16-bit pairs.
// Rows past k and columns past n stay zero. The column sums are added up on the way in int16 lanes,
// flushed every 256 rows (|v| ≤ 128, so 256 of them fit).
TREESIM_VNNI void pack_b_vnni(const Int8Operand& b, std::uint64_t k, std::uint64_t n, std::uint8_t flip,
                              std::uint8_t* out, std::uint32_t* col_sums) {
  const std::uint64_t groups = (k + 3) / 4, blocks = (n + 15) / 16;
  const __m128i flips = _mm_set1_epi8(static_cast<char>(flip));
  alignas(16) std::int16_t lanes[16];
  for (std::uint64_t jb = 0; jb < blocks; ++jb) {
    const std::uint64_t col = jb * 16, cols = n - col < 16 ? n - col : 16;
    const auto mask = static_cast<__mmask16>((1u << cols) - 1u);
    __m128i sum_lo = _mm_setzero_si128(), sum_hi = _mm_setzero_si128();
    auto flush = [&] {
      _mm_store_si128(reinterpret_cast<__m128i*>(lanes), sum_lo);
      _mm_store_si128(reinterpret_cast<__m128i*>(lanes + 8), sum_hi);
      for (std::uint64_t j = 0; j < cols; ++j)
        col_sums[col + j] += static_cast<std::uint32_t>(static_cast<std::int32_t>(lanes[j]));
      sum_lo = sum_hi = _mm_setzero_si128();
    };
    for (std::uint64_t q = 0; q < groups; ++q) {
      __m128i r[4];
#pragma GCC unroll 4
      for (std::uint64_t s = 0; s < 4; ++s) {
        const std::uint64_t kk = q * 4 + s;
        r[s] = kk < k ? _mm_maskz_mov_epi8(
                            mask, _mm_xor_si128(_mm_maskz_loadu_epi8(mask, b.bytes + kk * n + col), flips))
                      : _mm_setzero_si128();
        // Sign-extended to int16: the byte in the high half, shifted down arithmetically.
        sum_lo = _mm_add_epi16(sum_lo, _mm_srai_epi16(_mm_unpacklo_epi8(r[s], r[s]), 8));
        sum_hi = _mm_add_epi16(sum_hi, _mm_srai_epi16(_mm_unpackhi_epi8(r[s], r[s]), 8));
      }
      const __m128i t0 = _mm_unpacklo_epi8(r[0], r[1]), t1 = _mm_unpackhi_epi8(r[0], r[1]);
      const __m128i t2 = _mm_unpacklo_epi8(r[2], r[3]), t3 = _mm_unpackhi_epi8(r[2], r[3]);
      __m128i* dst = reinterpret_cast<__m128i*>(out + (jb * groups + q) * 64);
      _mm_storeu_si128(dst + 0, _mm_unpacklo_epi16(t0, t2));
      _mm_storeu_si128(dst + 1, _mm_unpackhi_epi16(t0, t2));
      _mm_storeu_si128(dst + 2, _mm_unpacklo_epi16(t1, t3));
      _mm_storeu_si128(dst + 3, _mm_unpackhi_epi16(t1, t3));
      if (q % 64 == 63) flush();
    }
    flush();
  }
}

// Per block of 16 rows and group of 4 k, row i's 4 values at 4i..4i+3: one gather of the 16 rows'
// quads (rows past m masked off), and their sums by vpdpbusd against ones. A last quad of fewer than
// 4 values is read byte by byte.
TREESIM_VNNI void pack_a_row_quads(const Int8Operand& a, std::uint64_t m, std::uint64_t k, std::uint8_t flip,
                                   std::uint8_t* out, std::uint32_t* row_sums) {
  const std::uint64_t groups = (k + 3) / 4, full = k / 4;
  const __m512i flips = _mm512_set1_epi8(static_cast<char>(flip)), ones = _mm512_set1_epi8(1);
  const __m512i rows =
      _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                         _mm512_set1_epi32(static_cast<std::int32_t>(k)));
  for (std::uint64_t rb = 0; rb * 16 < m; ++rb) {
    const std::uint64_t count = m - rb * 16 < 16 ? m - rb * 16 : 16;
    const auto mask = static_cast<__mmask16>((1u << count) - 1u);
    const std::uint8_t* base = a.bytes + rb * 16 * k;
    std::uint8_t* dst = out + rb * groups * 64;
    __m512i sums = _mm512_setzero_si512();
    // Row offsets in int32: a block of A is far below 2 GiB.
    for (std::uint64_t q = 0; q < full; ++q) {
      const __m512i v = _mm512_maskz_mov_epi32(
          mask, _mm512_xor_si512(
                    _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), mask, rows, base + q * 4, 1), flips));
      _mm512_storeu_si512(dst + q * 64, v);
      sums = _mm512_dpbusd_epi32(sums, v, ones);
    }
    _mm512_mask_storeu_epi32(row_sums + rb * 16, mask, sums);
    for (std::uint64_t i = 0; i < count; ++i)
      for (std::uint64_t kk = full * 4; kk < k; ++kk) {
        const auto v = static_cast<std::uint8_t>(base[i * k + kk] ^ flip);
        dst[full * 64 + i * 4 + kk % 4] = v;
        row_sums[rb * 16 + i] += v;
      }
  }
}

void mac_vnni(const PackedA& a, const PackedB& b, std::uint8_t* c, bool accumulate) {
  if (a.by_row_quads) {
    // N = 1 … 15 (narrow_c); no columns, nothing to write.
    return narrow_for(b.n, a, b, c, accumulate,
                      std::integer_sequence<int, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15>{});
  }
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

}  // namespace treesim::host
