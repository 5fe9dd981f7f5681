#include "models/host/mac_batch.h"

#include <algorithm>

namespace treesim::host {
namespace {

// The cache entry packed from PE `source`'s bytes, packing them into the oldest entry when none is.
// Neighbouring PEs mostly share a source: the last entry found is tried first.
template <typename Cache, typename Pack>
const auto& lookup(Cache& cache, std::uint32_t source, Pack pack) {
  if (cache.valid[cache.last] && cache.source[cache.last] == source) return cache.packed[cache.last];
  for (std::size_t e = 0; e < Cache::kEntries; ++e)
    if (cache.valid[e] && cache.source[e] == source) return cache.packed[cache.last = e];
  const std::size_t e = cache.next;
  cache.next = (cache.next + 1) % Cache::kEntries;
  cache.source[e] = source;
  pack(cache.packed[e]);
  cache.valid[e] = true;
  return cache.packed[cache.last = e];
}

}  // namespace

void MacBatch::run_range(const MacShape& op, const LmView& pes, const LmReplicas& shared, std::uint32_t first,
                         std::uint32_t last, Worker& w) const {
  // Entries of an earlier instruction may have another shape or zero point; those of this one's
  // earlier pieces are kept (a B is shared by PEs all over the board).
  if (w.instruction != instruction_) {
    w.a.valid.fill(false);
    w.b.valid.fill(false);
    w.instruction = instruction_;
  }
  const Int8Operand a_kind{nullptr, op.a_signed, op.a_zero}, b_kind{nullptr, op.b_signed, op.b_zero};
  const std::int32_t za = folded_zero_a(a_kind), zb = folded_zero_b(b_kind);
  const std::uint64_t c_bytes = op.m * op.n * 4;
  // Where each PE's operands are (the shared ranges are found once, not per PE).
  const std::vector<std::uint32_t>* a_sources = shared.sources(op.a, op.a + op.m * op.k);
  const std::vector<std::uint32_t>* b_sources = shared.sources(op.b, op.b + op.k * op.n);
  for (std::uint32_t q = first; q < last; ++q) {
    // The next PE's C, which its MAC reads (accumulating) and writes, comes into the cache while
    // this PE's MACs run: C is the one operand no other PE shares, so nothing else brought it.
    if (q + 1 < last)
      for (std::uint64_t at = 0; at < c_bytes; at += 64) __builtin_prefetch(pes.lm(q + 1) + op.c + at, 1, 3);
    const std::uint32_t sa = a_sources ? (*a_sources)[q] : q, sb = b_sources ? (*b_sources)[q] : q;
    const Int8Operand a{pes.lm(sa) + op.a, op.a_signed, op.a_zero};
    const Int8Operand b{pes.lm(sb) + op.b, op.b_signed, op.b_zero};
    const PackedA& pa = lookup(w.a, sa, [&](PackedA& out) { pack_a(isa_, a, op.m, op.k, op.n, zb, out); });
    const PackedB& pb = lookup(w.b, sb, [&](PackedB& out) { pack_b(isa_, b, op.k, op.n, za, out); });
    mac_packed(isa_, pa, pb, pes.lm(q) + op.c, op.accumulate);
  }
}

std::exception_ptr MacBatch::run(const MacShape& op, const LmView& pes, const LmReplicas& shared,
                                 LanePool& pool) {
  if (workers_.size() < pool.threads()) workers_.resize(pool.threads());
  ++instruction_;
  const std::uint64_t per_pe = std::max<std::uint64_t>(1, op.m * op.n * op.k);
  return pool.run(pes.count, std::max<std::uint64_t>(1, kMacsPerThread / per_pe),
                  [&](std::uint64_t first, std::uint64_t last, unsigned worker) {
                    run_range(op, pes, shared, static_cast<std::uint32_t>(first),
                              static_cast<std::uint32_t>(last), workers_[worker]);
                  });
}

}  // namespace treesim::host
