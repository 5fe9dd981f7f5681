#include "models/mac_kernel.h"

#include <vector>

namespace treesim::models {
namespace {

// |a|, |b| ≤ 255 (an 8-bit code minus an 8-bit zero point), so 2^15 products of a K chunk sum
// inside int32 without overflow; chunks are added to C with wrapping.
constexpr std::uint64_t kChunk = 1 << 15;

// row[j] += a·b[j] over one row of B: the loop compilers vectorize (widen, multiply, add); the
// AVX2 clone is picked at load time on CPUs that have it.
__attribute__((target_clones("avx2", "default"))) void axpy(std::int32_t a, const std::int16_t* b, std::int32_t* row,
                                                            std::uint64_t n) {
  for (std::uint64_t j = 0; j < n; ++j) row[j] += a * static_cast<std::int32_t>(b[j]);
}

}  // namespace

void mac_int16(const std::int16_t* a, const std::int16_t* b, std::int32_t* c, std::uint64_t m, std::uint64_t n,
               std::uint64_t k, bool accumulate) {
  std::vector<std::int32_t> row(n);
  for (std::uint64_t i = 0; i < m; ++i) {
    std::int32_t* out = c + i * n;
    if (!accumulate)
      for (std::uint64_t j = 0; j < n; ++j) out[j] = 0;
    for (std::uint64_t k0 = 0; k0 < k; k0 += kChunk) {
      const std::uint64_t k1 = k0 + kChunk < k ? k0 + kChunk : k;
      for (std::uint64_t j = 0; j < n; ++j) row[j] = 0;
      for (std::uint64_t kk = k0; kk < k1; ++kk) axpy(a[i * k + kk], b + kk * n, row.data(), n);
      for (std::uint64_t j = 0; j < n; ++j)
        out[j] = static_cast<std::int32_t>(static_cast<std::uint32_t>(out[j]) + static_cast<std::uint32_t>(row[j]));
    }
  }
}

}  // namespace treesim::models
