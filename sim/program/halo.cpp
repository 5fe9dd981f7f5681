#include "sim/program/halo.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "sim/layout/unit_view.h"

namespace treesim::program {

namespace {

// A bit per element over [lo, lo + range): runs set whole words at a time, and the union read
// back by counting trailing zeros, so that a unit's union costs its range / 64 words plus its runs
// (a byte per element and memchr per run cost several times more on a row gather's one-row runs).
class BitUnion {
 public:
  void reset(std::uint64_t lo, std::uint64_t range) {
    lo_ = lo;
    words_.assign((range + 63) / 64, 0);
  }
  void set(std::uint64_t first, std::uint64_t count) {
    // A word's share of the run at a time: bits [i % 64, i % 64 + n) of word i / 64.
    for (std::uint64_t i = first - lo_, end = i + count; i < end;) {
      const std::uint64_t bit = i % 64, n = std::min<std::uint64_t>(64 - bit, end - i);
      words_[i / 64] |= (n == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << n) - 1)) << bit;
      i += n;
    }
  }
  std::vector<ElementRun> runs(std::size_t most) const {
    std::vector<ElementRun> out;
    out.reserve(most);
    runs_into(out);
    return out;
  }
  // The same into `out` (cleared; its room reused).
  void runs_into(std::vector<ElementRun>& out) const {
    out.clear();
    for (std::uint64_t w = 0; w < words_.size(); ++w) {
      std::uint64_t bits = words_[w];
      while (bits != 0) {
        const auto zeros = static_cast<std::uint64_t>(__builtin_ctzll(bits));
        const std::uint64_t inverted = ~(bits >> zeros);
        const std::uint64_t ones =
            inverted == 0 ? 64 - zeros : static_cast<std::uint64_t>(__builtin_ctzll(inverted));
        const std::uint64_t first = lo_ + w * 64 + zeros;
        if (!out.empty() && out.back().first + out.back().count == first)
          out.back().count += ones;  // continues the run from the word before
        else
          out.push_back({first, ones});
        bits = zeros + ones >= 64 ? 0 : bits & (~std::uint64_t{0} << (zeros + ones));
      }
    }
  }

 private:
  std::uint64_t lo_ = 0;
  std::vector<std::uint64_t> words_;
};

// Joins `r` to `last` when they overlap or touch (the union's runs are maximal); false when `r`
// starts a run of its own.
bool join(ElementRun& last, const ElementRun& r) {
  if (r.first > last.first + last.count) return false;
  last.count = std::max(last.first + last.count, r.first + r.count) - last.first;
  return true;
}

// Whether a union of `runs` runs over [lo, hi) is cheaper as bits than by sorting or merging: its
// words are not many more than its runs.
bool dense(std::uint64_t lo, std::uint64_t hi, std::size_t runs) { return (hi - lo) / 64 <= 2 * runs; }

}  // namespace

std::vector<ElementRun> merge_runs(std::vector<ElementRun>& runs) {
  const auto by_first = [](const ElementRun& a, const ElementRun& b) { return a.first < b.first; };
  // Row gathers list a PE's runs in order already (its columns increase): check before sorting.
  // Out of order and dense (a pass's rows over all PEs), the union is taken as bits.
  if (!std::is_sorted(runs.begin(), runs.end(), by_first)) {
    std::uint64_t lo = UINT64_MAX, hi = 0;
    for (const ElementRun& r : runs) lo = std::min(lo, r.first), hi = std::max(hi, r.first + r.count);
    if (dense(lo, hi, runs.size())) {
      BitUnion bits;
      bits.reset(lo, hi - lo);
      for (const ElementRun& r : runs) bits.set(r.first, r.count);
      bits.runs_into(runs);  // no more runs than went in
      return std::move(runs);
    }
    std::sort(runs.begin(), runs.end(), by_first);
  }
  // Joined in place: millions of one-row runs for a pass's x gather.
  std::size_t n = 0;
  for (std::size_t i = 0; i < runs.size(); ++i)
    if (n == 0 || !join(runs[n - 1], runs[i])) runs[n++] = runs[i];
  runs.resize(n);
  if (runs.capacity() > 2 * n + 64) runs.shrink_to_fit();  // many joined: keep only what is left
  return std::move(runs);
}

namespace {

using Runs = std::vector<ElementRun>;

std::uint64_t size_of(const Runs& runs) {
  std::uint64_t n = 0;
  for (const ElementRun& r : runs) n += r.count;
  return n;
}

// The union of run lists (each sorted): as bits over their range unless the range is far wider
// than they are many (a few runs spread over a large tensor), then by a k-way merge.
Runs union_of(const std::vector<const Runs*>& parts, BitUnion& bits) {
  std::uint64_t lo = UINT64_MAX, hi = 0;
  std::size_t runs = 0;
  for (const Runs* p : parts) {
    if (p->empty()) continue;
    lo = std::min(lo, p->front().first);
    hi = std::max(hi, p->back().first + p->back().count);
    runs += p->size();
  }
  Runs out;
  if (runs == 0) return out;
  if (dense(lo, hi, runs)) {
    bits.reset(lo, hi - lo);
    for (const Runs* p : parts)
      for (const ElementRun& r : *p) bits.set(r.first, r.count);
    return bits.runs(runs);
  }
  // The parts' next runs, the earliest taken each time (from a heap when there are many), joining
  // runs that overlap or touch as merge_runs does.
  struct Head {
    const ElementRun *at, *end;
  };
  std::vector<Head> heads;
  for (const Runs* p : parts)
    if (!p->empty()) heads.push_back({p->data(), p->data() + p->size()});
  out.reserve(runs);
  const auto take = [&out](const ElementRun& r) {
    if (out.empty() || !join(out.back(), r)) out.push_back(r);
  };
  if (heads.size() <= 8) {  // a MAB's four PEs: a scan of the heads beats keeping a heap
    while (!heads.empty()) {
      std::size_t min = 0;
      for (std::size_t h = 1; h < heads.size(); ++h)
        if (heads[h].at->first < heads[min].at->first) min = h;
      take(*heads[min].at);
      if (++heads[min].at == heads[min].end) heads.erase(heads.begin() + static_cast<std::ptrdiff_t>(min));
    }
    return out;
  }
  const auto later = [](const Head& a, const Head& b) { return a.at->first > b.at->first; };
  std::make_heap(heads.begin(), heads.end(), later);
  while (!heads.empty()) {
    std::pop_heap(heads.begin(), heads.end(), later);
    Head& h = heads.back();
    take(*h.at);
    if (++h.at == h.end)
      heads.pop_back();
    else
      std::push_heap(heads.begin(), heads.end(), later);
  }
  return out;
}

}  // namespace

bool UnitAxesLess::operator()(const std::vector<std::vector<layout::IndexRun>>& a,
                              const std::vector<std::vector<layout::IndexRun>>& b) const {
  auto key = [](const layout::IndexRun& r) { return std::tuple(r.start, r.count, r.step); };
  return std::lexicographical_compare(
      a.begin(), a.end(), b.begin(), b.end(), [&](const auto& x, const auto& y) {
        return std::lexicographical_compare(x.begin(), x.end(), y.begin(), y.end(),
                                            [&](const auto& p, const auto& q) { return key(p) < key(q); });
      });
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> held_intervals(const std::vector<layout::IndexRun>& runs,
                                                                    std::uint64_t limit) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  for (const layout::IndexRun& r : runs) {
    if (r.step == 1 || r.count == 1) {
      if (r.start < limit) out.push_back({r.start, std::min(r.count, limit - r.start)});
      continue;
    }
    for (std::uint64_t i = 0; i < r.count; ++i)
      if (r.start + i * r.step < limit) out.push_back({r.start + i * r.step, 1});
  }
  return out;
}

Runs distinct_runs(std::vector<std::uint64_t>& e, std::vector<std::uint8_t>& seen) {
  Runs out;
  if (e.empty()) return out;
  const auto [lo, hi] = std::minmax_element(e.begin(), e.end());
  const std::uint64_t base = *lo, range = *hi - *lo + 1;
  if (range <= 16 * e.size()) {
    seen.assign(range, 0);
    for (std::uint64_t x : e) seen[x - base] = 1;
    return marked_runs(seen, base);
  }
  std::sort(e.begin(), e.end());
  for (std::uint64_t x : e) {
    if (!out.empty() && x < out.back().first + out.back().count) continue;  // a repeat
    if (!out.empty() && x == out.back().first + out.back().count)
      ++out.back().count;
    else
      out.push_back({x, 1});
  }
  return out;
}

HaloTraffic halo_traffic(const Window& w, const std::vector<std::uint64_t>& tensor,
                         const std::vector<std::uint64_t>& offset, const layout::BoundLayout& b) {
  std::vector<Runs> pe_needs(b.pe_count());
  std::vector<std::uint64_t> elements;
  std::vector<std::uint8_t> seen;
  // PEs holding the same rows and columns (copies along another dimension) need the same elements.
  std::map<std::vector<std::vector<layout::IndexRun>>, Runs, UnitAxesLess> by_view;
  for_each_used_pe(b, [&](std::uint64_t pe, const layout::UnitView& v) {
    auto [it, fresh] = by_view.try_emplace(v.axes);
    if (fresh) {
      elements.clear();
      for (auto [r0, rn] : held_intervals(v.axes[0], b.shape()[0]))
        for (auto [c0, cn] : held_intervals(v.axes[1], b.shape()[1]))
          window_elements(w, tensor, {offset[0] + r0, offset[1] + c0}, {rn, cn}, elements);
      it->second = distinct_runs(elements, seen);
    }
    pe_needs[pe] = it->second;
  });
  return needs_traffic(std::move(pe_needs), b);
}

HaloTraffic needs_traffic(std::vector<std::vector<ElementRun>> pe_needs, const layout::BoundLayout& b) {
  const std::size_t levels = b.level_count();
  const std::uint64_t eb = b.element_bytes();
  // need[l][u]: level l's unit u (global index, row-major over the coordinates from the root).
  std::vector<std::vector<Runs>> need(levels);
  BitUnion bits;
  HaloTraffic out;
  need[levels - 1] = std::move(pe_needs);
  for (const Runs& r : need[levels - 1]) {
    const std::uint64_t n = size_of(r);
    out.largest_patch = std::max(out.largest_patch, n);
    if (n > 0) ++out.pes;
  }
  // Each level's needs from its children's, up to the board's (everything).
  std::vector<const Runs*> children;
  for (std::size_t l = levels - 1; l-- > 0;) {
    const std::uint64_t f = b.fanout(l + 1);
    need[l].resize(need[l + 1].size() / f);
    for (std::uint64_t u = 0; u < need[l].size(); ++u) {
      children.clear();
      for (std::uint64_t c = 0; c < f; ++c)
        if (!need[l + 1][u * f + c].empty()) children.push_back(&need[l + 1][u * f + c]);
      if (children.size() == 1)
        need[l][u] = *children[0];  // one child's needs: no union to make
      else if (!children.empty())
        need[l][u] = union_of(children, bits);
    }
  }
  std::vector<const Runs*> top;
  for (const Runs& r : need[0]) top.push_back(&r);
  const std::vector<Runs> board{union_of(top, bits)};

  out.plan.dram_read_bytes = size_of(board[0]) * eb;
  out.plan.levels.resize(levels);
  out.ports.resize(levels);
  // Each unit's elements, level by level (a unit is a child once and a parent once).
  std::vector<std::uint64_t> parent_sizes{size_of(board[0])}, sizes;
  for (std::size_t x = 0; x < levels; ++x) {
    layout::LevelTraffic& t = out.plan.levels[x];
    sizes.clear();
    for (const Runs& r : need[x]) sizes.push_back(size_of(r)), t.down_delivered_bytes += sizes.back() * eb;
    const std::vector<Runs>& parents = x == 0 ? board : need[x - 1];
    const std::uint64_t f = b.fanout(x);
    for (std::uint64_t p = 0; p < parents.size(); ++p) {
      const std::uint64_t bytes = parent_sizes[p] * eb;
      if (bytes == 0) continue;
      t.down_sent_bytes += bytes;
      t.busiest_down_port_bytes = std::max(t.busiest_down_port_bytes, bytes);
      out.ports[x].push_back({p, bytes});
      std::vector<const Runs*> distinct;
      for (std::uint64_t c = 0; c < f; ++c) {
        const Runs& child = need[x][p * f + c];
        if (child.empty()) continue;
        if (std::none_of(distinct.begin(), distinct.end(), [&](const Runs* d) { return *d == child; }))
          distinct.push_back(&child);
      }
      out.plan.transfers += distinct.size();
    }
    parent_sizes.swap(sizes);
  }
  return out;
}

}  // namespace treesim::program
