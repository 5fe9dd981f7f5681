#include "models/mac_batch.h"

#include <cstring>

namespace treesim::models {
namespace {

// The cache entry packed from exactly `bytes`, packing them into the oldest entry when none is.
template <typename Cache, typename Pack>
const auto& lookup(Cache& cache, const std::uint8_t* bytes, std::uint64_t size, Pack pack) {
  for (std::size_t e = 0; e < Cache::kEntries; ++e)
    if (cache.valid[e] && (size == 0 || std::memcmp(cache.source[e].data(), bytes, size) == 0))
      return cache.packed[e];
  const std::size_t e = cache.next;
  cache.next = (cache.next + 1) % Cache::kEntries;
  cache.source[e].assign(bytes, bytes + size);
  pack(cache.packed[e]);
  cache.valid[e] = true;
  return cache.packed[e];
}

}  // namespace

void MacBatch::run(const MacShape& op, const std::vector<Pe*>& pes) {
  // Entries of an earlier instruction may have another shape or zero point.
  a_.clear();
  b_.clear();
  for (Pe* pe : pes) {
    const Int8Operand a{pe->lm() + op.a, op.a_signed, op.a_zero}, b{pe->lm() + op.b, op.b_signed, op.b_zero};
    const PackedA& pa =
        lookup(a_, a.bytes, op.m * op.k, [&](PackedA& out) { pack_a(a, op.m, op.k, out); });
    const PackedB& pb =
        lookup(b_, b.bytes, op.k * op.n, [&](PackedB& out) { pack_b(b, op.k, op.n, out); });
    mac_vnni(pa, pb, pe->lm() + op.c, op.accumulate);
  }
}

}  // namespace treesim::models
