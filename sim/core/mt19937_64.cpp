#include "sim/core/mt19937_64.h"

namespace treesim::core {
namespace {

// The parameters of std::mt19937_64 (Matsumoto and Nishimura's MT19937-64).
constexpr std::size_t kN = Mt19937_64::state_size, kM = 156;
constexpr std::uint64_t kMatrix = 0xb5026f5aa96619e9ULL, kUpper = ~std::uint64_t{0} << 31, kLower = ~kUpper;

std::uint64_t twisted(std::uint64_t far, std::uint64_t here, std::uint64_t next) {
  const std::uint64_t y = (here & kUpper) | (next & kLower);
  return far ^ (y >> 1) ^ ((0 - (y & 1)) & kMatrix);  // no branch on the random low bit
}

// Two loops without a carried dependency shorter than kN − kM words, so both vectorize.
__attribute__((target_clones("arch=x86-64-v4", "avx2", "default"))) void twist_and_temper(
    std::uint64_t* x, std::uint64_t* out) {
  for (std::size_t k = 0; k < kN - kM; ++k) x[k] = twisted(x[k + kM], x[k], x[k + 1]);
  for (std::size_t k = kN - kM; k < kN - 1; ++k) x[k] = twisted(x[k + kM - kN], x[k], x[k + 1]);
  x[kN - 1] = twisted(x[kM - 1], x[kN - 1], x[0]);
  for (std::size_t k = 0; k < kN; ++k) {
    std::uint64_t z = x[k];
    z ^= (z >> 29) & 0x5555555555555555ULL;
    z ^= (z << 17) & 0x71d67fffeda60000ULL;
    z ^= (z << 37) & 0xfff7eee000000000ULL;
    out[k] = z ^ (z >> 43);
  }
}

}  // namespace

Mt19937_64::Mt19937_64(result_type seed) {
  state_[0] = seed;
  for (std::size_t k = 1; k < kN; ++k)
    state_[k] = 6364136223846793005ULL * (state_[k - 1] ^ (state_[k - 1] >> 62)) + k;
}

void Mt19937_64::refill() {
  twist_and_temper(state_.data(), out_.data());
  next_ = 0;
}

}  // namespace treesim::core
