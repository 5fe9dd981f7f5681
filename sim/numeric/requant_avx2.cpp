// Double-rounding requantization, 8 accumulators at a time with AVX2: the same integer steps as
// multiply_by_quantized_multiplier (gemmlowp's SaturatingRoundingDoublingHighMul, then
// RoundingDivideByPOT), lane by lane. The 64-bit products come from vpmuldq on the even and the odd
// lanes; their high words are taken with a logical shift, which equals the arithmetic one on the
// 32 bits kept.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "sim/numeric/requant_avx2.h"

namespace treesim::numeric {
namespace {

#define TREESIM_AVX2 __attribute__((target("avx2")))

// SaturatingRoundingDoublingHighMul of the 4 products in the 64-bit lanes of a·m (even lanes of a
// and m), as 64-bit lanes whose low 32 bits are the result.
TREESIM_AVX2 inline __m256i high_mul(__m256i a, __m256i m) {
  const __m256i ab = _mm256_mul_epi32(a, m);
  const __m256i zero = _mm256_setzero_si256();
  const __m256i negative = _mm256_cmpgt_epi64(zero, ab);
  const __m256i nudge = _mm256_blendv_epi8(_mm256_set1_epi64x(std::int64_t{1} << 30),
                                           _mm256_set1_epi64x(1 - (std::int64_t{1} << 30)), negative);
  const __m256i sum = _mm256_add_epi64(ab, nudge);
  // Division by 2^31 toward zero: a negative sum is raised by 2^31 − 1 first.
  const __m256i toward_zero =
      _mm256_and_si256(_mm256_cmpgt_epi64(zero, sum), _mm256_set1_epi64x((std::int64_t{1} << 31) - 1));
  return _mm256_srli_epi64(_mm256_add_epi64(sum, toward_zero), 31);
}

// Eight accumulators of eight channels: the output codes as int32 lanes.
TREESIM_AVX2 inline __m256i requant8(__m256i x, const RequantLanes& p, std::size_t c) {
  const __m256i mult = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p.mult + c));
  const __m256i left = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p.left + c));
  const __m256i right = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p.right + c));
  const __m256i a = _mm256_sllv_epi32(x, left);
  const __m256i even = high_mul(a, mult);
  const __m256i odd = high_mul(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(mult, 32));
  __m256i high = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
  const __m256i min = _mm256_set1_epi32(INT32_MIN);
  const __m256i both_min = _mm256_and_si256(_mm256_cmpeq_epi32(a, min), _mm256_cmpeq_epi32(mult, min));
  high = _mm256_blendv_epi8(high, _mm256_set1_epi32(INT32_MAX), both_min);
  // RoundingDivideByPOT(high, right).
  const __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(_mm256_set1_epi32(1), right), _mm256_set1_epi32(1));
  const __m256i remainder = _mm256_and_si256(high, mask);
  const __m256i threshold =
      _mm256_sub_epi32(_mm256_srai_epi32(mask, 1), _mm256_cmpgt_epi32(_mm256_setzero_si256(), high));
  __m256i q = _mm256_srav_epi32(high, right);
  q = _mm256_sub_epi32(q, _mm256_cmpgt_epi32(remainder, threshold));
  // + zero point, then clamp: clamped first to the range shifted by the zero point, so that the sum
  // cannot wrap where the reference's is taken in 64 bits.
  q = _mm256_max_epi32(q, _mm256_set1_epi32(p.lo - p.zero));
  q = _mm256_min_epi32(q, _mm256_set1_epi32(p.hi - p.zero));
  return _mm256_add_epi32(q, _mm256_set1_epi32(p.zero));
}

}  // namespace

bool requant_avx2_available() { return __builtin_cpu_supports("avx2"); }

TREESIM_AVX2 void requantize_double_bytes_avx2(const std::uint8_t* acc, const std::uint8_t* bias,
                                               std::size_t rows, const RequantLanes& p, std::uint8_t* out) {
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  // The low byte of each int32 lane, packed into the first 8 bytes.
  const __m256i low_bytes = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0,
                                             4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  for (std::size_t r = 0; r < rows; ++r) {
    const std::uint8_t* row = acc + 4 * r * p.channels;
    std::uint8_t* dst = out + r * p.channels;
    for (std::size_t c = 0; c < p.channels; c += 8) {
      const std::size_t count = p.channels - c < 8 ? p.channels - c : 8;
      const __m256i valid = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)), lane);
      __m256i x = _mm256_maskload_epi32(reinterpret_cast<const int*>(row + 4 * c), valid);
      if (bias)
        x = _mm256_add_epi32(x, _mm256_maskload_epi32(reinterpret_cast<const int*>(bias + 4 * c), valid));
      const __m256i codes = _mm256_shuffle_epi8(requant8(x, p, c), low_bytes);
      const std::uint32_t lo = static_cast<std::uint32_t>(_mm256_extract_epi32(codes, 0));
      const std::uint32_t hi = static_cast<std::uint32_t>(_mm256_extract_epi32(codes, 4));
      std::uint8_t bytes[8];
      std::memcpy(bytes, &lo, 4);
      std::memcpy(bytes + 4, &hi, 4);
      std::memcpy(dst + c, bytes, count);
    }
  }
}

}  // namespace treesim::numeric
