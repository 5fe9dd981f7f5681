#include "models/mac_kernel.h"

namespace treesim::models {
namespace {

// |a|, |b| ≤ 255 (an 8-bit code minus an 8-bit zero point), so a chunk of 2^15 products stays
// inside int32 without overflow; chunks are added with wrapping. The loop is the shape compilers
// turn into pmaddwd; the AVX2 clone is picked at load time on CPUs that have it.
constexpr std::uint64_t kChunk = 1 << 15;

__attribute__((target_clones("avx2", "default"))) std::int32_t dot(const std::int16_t* a,
                                                                   const std::int16_t* b, std::uint64_t n) {
  std::int32_t sum = 0;
  for (std::uint64_t i = 0; i < n; ++i)
    sum += static_cast<std::int32_t>(a[i]) * static_cast<std::int32_t>(b[i]);
  return sum;
}

std::uint32_t wide_dot(const std::int16_t* a, const std::int16_t* b, std::uint64_t n) {
  std::uint32_t total = 0;
  for (std::uint64_t at = 0; at < n; at += kChunk)
    total += static_cast<std::uint32_t>(dot(a + at, b + at, n - at < kChunk ? n - at : kChunk));
  return total;
}

}  // namespace

void mac_int16(const std::int16_t* a, const std::int16_t* bt, std::int32_t* c, std::uint64_t m,
               std::uint64_t n, std::uint64_t k, bool accumulate) {
  for (std::uint64_t i = 0; i < m; ++i) {
    for (std::uint64_t j = 0; j < n; ++j) {
      std::uint32_t v = wide_dot(a + i * k, bt + j * k, k);
      if (accumulate) v += static_cast<std::uint32_t>(c[i * n + j]);
      c[i * n + j] = static_cast<std::int32_t>(v);
    }
  }
}

}  // namespace treesim::models
