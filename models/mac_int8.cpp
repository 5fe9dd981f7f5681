#include "models/mac_int8.h"

#include <emmintrin.h>

#include <cstring>

namespace treesim::models {
namespace {

// k padded to the kernel's group: 4 bytes per vpdpbusd lane, 2 int16 per vpmaddwd lane.
std::uint64_t group(MacIsa isa) { return isa == MacIsa::kAvx512Vnni ? 4 : 2; }
std::uint64_t padded(std::uint64_t k, std::uint64_t g) { return (k + g - 1) / g * g; }

}  // namespace

bool mac_isa_available(MacIsa isa) {
  if (isa == MacIsa::kAvx2) return __builtin_cpu_supports("avx2");
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vnni");
}

std::optional<MacIsa> fastest_mac_isa() {
  for (MacIsa isa : {MacIsa::kAvx512Vnni, MacIsa::kAvx2})
    if (mac_isa_available(isa)) return isa;
  return std::nullopt;
}

void pack_a(MacIsa isa, const Int8Operand& a, std::uint64_t m, std::uint64_t k, std::int32_t zb,
            PackedA& out) {
  const std::uint64_t kp = padded(k, group(isa));
  const bool wide = isa == MacIsa::kAvx2;
  const std::uint8_t flip = a.is_signed ? 0x80 : 0;  // int8 a → uint8 a + 128
  const auto za = static_cast<std::uint32_t>(folded_zero_a(a)), zbu = static_cast<std::uint32_t>(zb);
  const std::uint32_t kzz = static_cast<std::uint32_t>(k) * za * zbu;
  out.m = m, out.k = k;
  out.data.assign(m * kp * (wide ? 2 : 1), 0);
  out.row_fix.resize(m);
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
      std::uint8_t* dst = out.data.data() + i * kp;
      // 16 bytes at a time, summed by psadbw (SSE2) against zero.
      const __m128i flips = _mm_set1_epi8(static_cast<char>(flip));
      __m128i sums = _mm_setzero_si128();
      std::uint64_t kk = 0;
      for (; kk + 16 <= k; kk += 16) {
        const __m128i v = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + kk)), flips);
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + kk), v);
        sums = _mm_add_epi64(sums, _mm_sad_epu8(v, _mm_setzero_si128()));
      }
      sum = static_cast<std::uint32_t>(_mm_cvtsi128_si64(sums) + _mm_extract_epi16(sums, 4) +
                                       (_mm_extract_epi16(sums, 5) << 16));
      for (; kk < k; ++kk) {
        dst[kk] = static_cast<std::uint8_t>(src[kk] ^ flip);
        sum += dst[kk];
      }
    }
    out.row_fix[i] = kzz - zbu * sum;  // modulo 2^32, as the accumulator wraps
  }
}

namespace {

// B's column sums Σ_k v of its values as int8 (v ^ flip), which eq. 7's column term needs.
void column_sums(const Int8Operand& b, std::uint64_t k, std::uint64_t n, std::uint8_t flip,
                 std::uint32_t* sums) {
  for (std::uint64_t kk = 0; kk < k; ++kk) {
    const std::uint8_t* src = b.bytes + kk * n;
    for (std::uint64_t j = 0; j < n; ++j)
      sums[j] +=
          static_cast<std::uint32_t>(static_cast<std::int32_t>(static_cast<std::int8_t>(src[j] ^ flip)));
  }
}

// VNNI packing: per block of 16 columns and group of 4 rows, 64 bytes holding column j's 4 values
// at 4j..4j+3. Four 16-byte rows interleave by bytes then by 16-bit pairs (SSE2: every x86-64 has
// it); rows past k and columns past n stay zero. The column sums are added up on the way, in int16
// lanes flushed to `sums` every 256 rows (|v| ≤ 128, so 256 of them fit).
void pack_b_vnni(const Int8Operand& b, std::uint64_t k, std::uint64_t n, std::uint8_t flip, std::uint8_t* out,
                 std::uint32_t* sums) {
  const std::uint64_t groups = (k + 3) / 4, blocks = (n + 15) / 16;
  const __m128i flips = _mm_set1_epi8(static_cast<char>(flip));
  alignas(16) std::uint8_t row[16];
  alignas(16) std::int16_t lanes[16];
  for (std::uint64_t jb = 0; jb < blocks; ++jb) {
    const std::uint64_t col = jb * 16, cols = n - col < 16 ? n - col : 16;
    __m128i sum_lo = _mm_setzero_si128(), sum_hi = _mm_setzero_si128();
    auto flush = [&] {
      _mm_store_si128(reinterpret_cast<__m128i*>(lanes), sum_lo);
      _mm_store_si128(reinterpret_cast<__m128i*>(lanes + 8), sum_hi);
      for (std::uint64_t j = 0; j < cols; ++j)
        sums[col + j] += static_cast<std::uint32_t>(static_cast<std::int32_t>(lanes[j]));
      sum_lo = sum_hi = _mm_setzero_si128();
    };
    for (std::uint64_t q = 0; q < groups; ++q) {
      __m128i r[4];
      for (std::uint64_t s = 0; s < 4; ++s) {
        const std::uint64_t kk = q * 4 + s;
        if (kk < k && cols == 16) {
          r[s] =
              _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b.bytes + kk * n + col)), flips);
        } else {
          std::memset(row, 0, 16);
          if (kk < k)
            for (std::uint64_t j = 0; j < cols; ++j)
              row[j] = static_cast<std::uint8_t>(b.bytes[kk * n + col + j] ^ flip);
          r[s] = _mm_load_si128(reinterpret_cast<const __m128i*>(row));
        }
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

// AVX2 packing: per block of 8 columns and pair of rows, column j's 2 values as int16 at 2j, 2j+1.
void pack_b_avx2(const Int8Operand& b, std::uint64_t k, std::uint64_t n, std::uint8_t flip,
                 std::uint8_t* out) {
  const std::uint64_t groups = (k + 1) / 2;
  for (std::uint64_t kk = 0; kk < k; ++kk) {
    const std::uint8_t* src = b.bytes + kk * n;
    for (std::uint64_t j = 0; j < n; ++j) {
      const auto w = static_cast<std::int16_t>(static_cast<std::int8_t>(src[j] ^ flip));
      const std::uint64_t at = (((j / 8) * groups + kk / 2) * 8 + j % 8) * 2 + kk % 2;
      std::memcpy(out + at * 2, &w, 2);
    }
  }
}

}  // namespace

void pack_b(MacIsa isa, const Int8Operand& b, std::uint64_t k, std::uint64_t n, std::int32_t za,
            PackedB& out) {
  const std::uint64_t g = group(isa), groups = padded(k, g) / g;
  const std::uint64_t lanes = isa == MacIsa::kAvx512Vnni ? 16 : 8, blocks = (n + lanes - 1) / lanes;
  const std::uint64_t bytes = isa == MacIsa::kAvx512Vnni ? 1 : 2;  // per value
  const std::uint8_t flip = b.is_signed ? 0 : 0x80;                // uint8 b → int8 b − 128
  out.k = k, out.n = n;
  out.data.assign(blocks * groups * lanes * g * bytes, 0);
  out.col_fix.assign(n + 16, 0);
  if (isa == MacIsa::kAvx512Vnni) {
    pack_b_vnni(b, k, n, flip, out.data.data(), out.col_fix.data());
  } else {
    pack_b_avx2(b, k, n, flip, out.data.data());
    column_sums(b, k, n, flip, out.col_fix.data());
  }
  for (std::uint64_t j = 0; j < n; ++j) out.col_fix[j] = 0u - static_cast<std::uint32_t>(za) * out.col_fix[j];
}

void mac_packed(MacIsa isa, const PackedA& a, const PackedB& b, std::uint8_t* c, bool accumulate) {
  if (isa == MacIsa::kAvx512Vnni)
    mac_vnni(a, b, c, accumulate);
  else
    mac_avx2(a, b, c, accumulate);
}

}  // namespace treesim::models
