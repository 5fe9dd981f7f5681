#include "models/mac_int8.h"

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
      for (std::uint64_t kk = 0; kk < k; ++kk) {
        dst[kk] = static_cast<std::uint8_t>(src[kk] ^ flip);
        sum += dst[kk];
      }
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
  for (std::uint64_t kk = 0; kk < k; ++kk) {
    const std::uint8_t* src = b.bytes + kk * n;
    for (std::uint64_t j = 0; j < n; ++j) {
      const auto v = static_cast<std::int8_t>(src[j] ^ flip);
      // Block j / lanes, group kk / g; within it lane j % lanes, slot kk % g.
      const std::uint64_t at = (((j / lanes) * groups + kk / g) * lanes + j % lanes) * g + kk % g;
      if (bytes == 1) {
        out.data[at] = static_cast<std::uint8_t>(v);
      } else {
        const auto w = static_cast<std::int16_t>(v);
        std::memcpy(out.data.data() + at * 2, &w, 2);
      }
      out.col_fix[j] += static_cast<std::uint32_t>(static_cast<std::int32_t>(v));
    }
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
