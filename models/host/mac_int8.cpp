#include "models/host/mac_int8.h"

#include <immintrin.h>

#include <cstring>

namespace treesim::host {
namespace {

// k padded to the kernel's group: 4 bytes per vpdpbusd lane, 2 int16 per vpmaddwd lane.
std::uint64_t group(MacIsa isa) { return isa == MacIsa::kAvx512Vnni ? 4 : 2; }
std::uint64_t padded(std::uint64_t k, std::uint64_t g) { return (k + g - 1) / g * g; }

// One row's bytes flipped (v ^ flip) into `dst`, and their sum, 16 at a time by psadbw (SSE2)
// against zero.
std::uint32_t flipped_row(const std::uint8_t* src, std::uint64_t k, std::uint8_t flip, std::uint8_t* dst) {
  const __m128i flips = _mm_set1_epi8(static_cast<char>(flip));
  __m128i sums = _mm_setzero_si128();
  std::uint64_t kk = 0;
  for (; kk + 16 <= k; kk += 16) {
    const __m128i v = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + kk)), flips);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + kk), v);
    sums = _mm_add_epi64(sums, _mm_sad_epu8(v, _mm_setzero_si128()));
  }
  auto sum = static_cast<std::uint32_t>(_mm_cvtsi128_si64(sums) + _mm_extract_epi16(sums, 4) +
                                        (_mm_extract_epi16(sums, 5) << 16));
  for (; kk < k; ++kk) {
    const auto v = static_cast<std::uint8_t>(src[kk] ^ flip);
    dst[kk] = v;
    sum += v;
  }
  return sum;
}

// AVX2 packing: per block of 8 columns and pair of rows, column j's 2 values as int16 at 2j, 2j+1;
// their column sums Σ_k v are added to `col_sums`, as pack_b_vnni does. A pair of rows' 8 bytes
// are interleaved and sign-extended in one go; a last block narrower than 8 reads zeros.
__attribute__((target("avx2"))) void pack_b_avx2(const Int8Operand& b, std::uint64_t k, std::uint64_t n,
                                                 std::uint8_t flip, std::uint8_t* out,
                                                 std::uint32_t* col_sums) {
  const std::uint64_t groups = (k + 1) / 2, blocks = (n + 7) / 8;
  const __m256i ones = _mm256_set1_epi16(1);
  for (std::uint64_t jb = 0; jb < blocks; ++jb) {
    const std::uint64_t cols = n - jb * 8 < 8 ? n - jb * 8 : 8;
    __m256i sums = _mm256_setzero_si256();
    for (std::uint64_t q = 0; q < groups; ++q) {
      std::uint64_t row[2] = {0, 0};  // 8 bytes of each of the pair's rows (the second may not exist)
      for (std::uint64_t r = 0; r < 2 && 2 * q + r < k; ++r) {
        std::memcpy(&row[r], b.bytes + (2 * q + r) * n + jb * 8, cols);
        row[r] ^= (0x0101010101010101ull * flip) & (cols == 8 ? ~0ull : (1ull << (8 * cols)) - 1);
      }
      const __m128i pair = _mm_unpacklo_epi8(_mm_cvtsi64_si128(static_cast<long long>(row[0])),
                                             _mm_cvtsi64_si128(static_cast<long long>(row[1])));
      const __m256i wide = _mm256_cvtepi8_epi16(pair);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + (jb * groups + q) * 32), wide);
      sums = _mm256_add_epi32(sums, _mm256_madd_epi16(wide, ones));
    }
    alignas(32) std::uint32_t s[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(s), sums);
    for (std::uint64_t j = 0; j < cols; ++j) col_sums[jb * 8 + j] += s[j];
  }
}

}  // namespace

bool mac_isa_available(MacIsa isa) {
  if (isa == MacIsa::kAvx2) return __builtin_cpu_supports("avx2");
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512vnni");
}

std::optional<MacIsa> fastest_mac_isa() {
  for (MacIsa isa : {MacIsa::kAvx512Vnni, MacIsa::kAvx2})
    if (mac_isa_available(isa)) return isa;
  return std::nullopt;
}

void pack_a(MacIsa isa, const Int8Operand& a, std::uint64_t m, std::uint64_t k, std::uint64_t n,
            std::int32_t zb, PackedA& out) {
  const std::uint64_t kp = padded(k, group(isa));
  const bool wide = isa == MacIsa::kAvx2;
  const std::uint8_t flip = a.is_signed ? 0x80 : 0;  // int8 a → uint8 a + 128
  const auto za = static_cast<std::uint32_t>(folded_zero_a(a)), zbu = static_cast<std::uint32_t>(zb);
  const std::uint32_t kzz = static_cast<std::uint32_t>(k) * za * zbu;
  out.m = m, out.k = k;
  out.by_row_quads = narrow_c(isa, n);
  out.row_fix.resize(m);
  if (out.by_row_quads && !wide) {
    out.data.assign((m + 15) / 16 * 16 * kp, 0);
    pack_a_row_quads(a, m, k, flip, out.data.data(), out.row_fix.data());
    for (std::uint64_t i = 0; i < m; ++i) out.row_fix[i] = kzz - zbu * out.row_fix[i];
    return;
  }
  if (out.by_row_quads) {
    // AVX2, rows in the lanes: per block of 8 rows and pair of k, 8 rows × 2 uint8, which the kernel
    // widens to int16 as it loads them (half the bytes of int16 to stream).
    const std::uint64_t pairs = kp / 2;
    out.data.assign((m + 7) / 8 * pairs * 16, 0);
    for (std::uint64_t i = 0; i < m; ++i) {
      const std::uint8_t* src = a.bytes + i * k;
      std::uint8_t* dst = out.data.data() + (i / 8) * pairs * 16 + (i % 8) * 2;
      std::uint32_t sum = 0;
      for (std::uint64_t kk = 0; kk < k; ++kk) {
        const auto v = static_cast<std::uint8_t>(src[kk] ^ flip);
        dst[(kk / 2) * 16 + kk % 2] = v;
        sum += v;
      }
      out.row_fix[i] = kzz - zbu * sum;
    }
    return;
  }
  out.data.assign(m * kp * (wide ? 2 : 1), 0);
  for (std::uint64_t i = 0; i < m; ++i) {
    const std::uint8_t* src = a.bytes + i * k;
    std::uint32_t sum = 0;
    if (wide) {
      std::uint8_t* dst = out.data.data() + i * kp * 2;
      for (std::uint64_t kk = 0; kk < k; ++kk) {
        const auto v = static_cast<std::uint16_t>(src[kk] ^ flip);
        std::memcpy(dst + kk * 2, &v, 2);
        sum += v;
      }
    } else {
      sum = flipped_row(src, k, flip, out.data.data() + i * kp);
    }
    out.row_fix[i] = kzz - zbu * sum;  // modulo 2^32, as the accumulator wraps
  }
}

void pack_b(MacIsa isa, const Int8Operand& b, std::uint64_t k, std::uint64_t n, std::int32_t za,
            PackedB& out) {
  const std::uint64_t g = group(isa), groups = padded(k, g) / g;
  const std::uint64_t lanes = isa == MacIsa::kAvx512Vnni ? 16 : 8, blocks = (n + lanes - 1) / lanes;
  const std::uint64_t bytes = isa == MacIsa::kAvx512Vnni ? 1 : 2;  // per value
  const std::uint8_t flip = b.is_signed ? 0 : 0x80;                // uint8 b → int8 b − 128
  out.k = k, out.n = n;
  out.data.assign(blocks * groups * lanes * g * bytes, 0);
  out.col_fix.assign(n + 16, 0);
  if (isa == MacIsa::kAvx512Vnni)
    pack_b_vnni(b, k, n, flip, out.data.data(), out.col_fix.data());
  else
    pack_b_avx2(b, k, n, flip, out.data.data(), out.col_fix.data());
  for (std::uint64_t j = 0; j < n; ++j) out.col_fix[j] = 0u - static_cast<std::uint32_t>(za) * out.col_fix[j];
}

void mac_packed(MacIsa isa, const PackedA& a, const PackedB& b, std::uint8_t* c, bool accumulate) {
  if (isa == MacIsa::kAvx512Vnni)
    mac_vnni(a, b, c, accumulate);
  else
    mac_avx2(a, b, c, accumulate);
}

}  // namespace treesim::host
