#include "models/mac_batch.h"

#include <sched.h>

#include <algorithm>
#include <exception>
#include <thread>

namespace treesim::models {
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

void MacBatch::run_range(const MacShape& op, const std::vector<Pe*>& pes, const LmReplicas& shared,
                         std::uint32_t first, std::uint32_t last, Worker& w) const {
  // Entries of an earlier instruction may have another shape or zero point.
  w.a.valid.fill(false);
  w.b.valid.fill(false);
  const Int8Operand a_kind{nullptr, op.a_signed, op.a_zero}, b_kind{nullptr, op.b_signed, op.b_zero};
  const std::int32_t za = folded_zero_a(a_kind), zb = folded_zero_b(b_kind);
  for (std::uint32_t q = first; q < last; ++q) {
    const std::uint32_t sa = shared.source(q, op.a, op.a + op.m * op.k);
    const std::uint32_t sb = shared.source(q, op.b, op.b + op.k * op.n);
    const Int8Operand a{pes[sa]->lm() + op.a, op.a_signed, op.a_zero};
    const Int8Operand b{pes[sb]->lm() + op.b, op.b_signed, op.b_zero};
    const PackedA& pa = lookup(w.a, sa, [&](PackedA& out) { pack_a(isa_, a, op.m, op.k, op.n, zb, out); });
    const PackedB& pb = lookup(w.b, sb, [&](PackedB& out) { pack_b(isa_, b, op.k, op.n, za, out); });
    mac_packed(isa_, pa, pb, pes[q]->lm() + op.c, op.accumulate);
  }
}

std::uint32_t MacBatch::usable_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

void MacBatch::run(const MacShape& op, const std::vector<Pe*>& pes, const LmReplicas& shared) {
  const auto count = static_cast<std::uint32_t>(pes.size());
  std::uint32_t threads = 1;
  if (op.m * op.n * op.k * count >= kParallelMacs)
    threads = std::min<std::uint32_t>({max_threads_, count, 16});
  if (workers_.size() < threads) workers_.resize(threads);
  if (threads == 1) return run_range(op, pes, shared, 0, count, workers_[0]);
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(threads);
  for (std::uint32_t t = 0; t < threads; ++t) {
    const std::uint32_t first = static_cast<std::uint32_t>(std::uint64_t{count} * t / threads);
    const std::uint32_t last = static_cast<std::uint32_t>(std::uint64_t{count} * (t + 1) / threads);
    pool.emplace_back([&, t, first, last] {
      try {
        run_range(op, pes, shared, first, last, workers_[t]);
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  }
  for (std::thread& th : pool) th.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace treesim::models
