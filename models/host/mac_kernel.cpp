#include "models/host/mac_kernel.h"

#include <vector>

namespace treesim::host {
namespace {

// |a|, |b| ≤ 255 (an 8-bit code minus an 8-bit zero point), so 2^15 products of a K chunk sum
// inside int32 without overflow; chunks are added to C with wrapping.
constexpr std::uint64_t kChunk = 1 << 15;

// row[j] += a·b[j] over one row of B: the loop compilers vectorize (widen, multiply, add); the
// AVX2 clone is picked at load time on CPUs that have it.
__attribute__((target_clones("avx2", "default"))) void axpy(std::int32_t a, const std::int16_t* b,
                                                            std::int32_t* row, std::uint64_t n) {
  for (std::uint64_t j = 0; j < n; ++j) row[j] += a * static_cast<std::int32_t>(b[j]);
}

// Σ a[i]·b[i]: the loop compilers turn into pmaddwd.
__attribute__((target_clones("avx2", "default"))) std::int32_t dot(const std::int16_t* a,
                                                                   const std::int16_t* b, std::uint64_t n) {
  std::int32_t sum = 0;
  for (std::uint64_t i = 0; i < n; ++i)
    sum += static_cast<std::int32_t>(a[i]) * static_cast<std::int32_t>(b[i]);
  return sum;
}

// Narrow C (few columns): every output is a dot product of an A row and a B column, so B is
// transposed once (it is small) and K runs in the inner loop.
void mac_narrow(const std::int16_t* a, const std::int16_t* b, std::int32_t* c, std::uint64_t m,
                std::uint64_t n, std::uint64_t k, bool accumulate) {
  std::vector<std::int16_t> bt(n * k);
  for (std::uint64_t kk = 0; kk < k; ++kk)
    for (std::uint64_t j = 0; j < n; ++j) bt[j * k + kk] = b[kk * n + j];
  for (std::uint64_t i = 0; i < m; ++i)
    for (std::uint64_t j = 0; j < n; ++j) {
      std::uint32_t v = accumulate ? static_cast<std::uint32_t>(c[i * n + j]) : 0;
      for (std::uint64_t k0 = 0; k0 < k; k0 += kChunk)
        v += static_cast<std::uint32_t>(
            dot(a + i * k + k0, bt.data() + j * k + k0, k - k0 < kChunk ? k - k0 : kChunk));
      c[i * n + j] = static_cast<std::int32_t>(v);
    }
}

}  // namespace

void mac_int16(const std::int16_t* a, const std::int16_t* b, std::int32_t* c, std::uint64_t m,
               std::uint64_t n, std::uint64_t k, bool accumulate) {
  if (n < 32) {
    mac_narrow(a, b, c, m, n, k, accumulate);
    return;
  }
  // Wide C: each A element scales a B row into int32 accumulators, K chunk by K chunk.
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
        out[j] = static_cast<std::int32_t>(static_cast<std::uint32_t>(out[j]) +
                                           static_cast<std::uint32_t>(row[j]));
    }
  }
}

}  // namespace treesim::host
