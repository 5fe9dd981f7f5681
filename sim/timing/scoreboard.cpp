#include "sim/timing/scoreboard.h"

#include <algorithm>

namespace treesim::timing {

std::uint64_t Scoreboard::ready(const std::vector<Range>& reads, const std::vector<Range>& writes,
                                std::size_t* by) const {
  std::uint64_t t = 0;
  std::size_t who = SIZE_MAX;
  auto wait = [&](const Access& a) {
    if (a.end > t) t = a.end, who = a.instr;
  };
  for (const Access& a : accesses_) {
    for (const Range& r : reads)
      if (a.write && a.range.overlaps(r)) wait(a);
    for (const Range& w : writes)
      if (a.range.overlaps(w)) wait(a);
  }
  if (by) *by = who;
  return t;
}

void Scoreboard::commit(const std::vector<Range>& reads, const std::vector<Range>& writes, std::uint64_t end,
                        std::size_t instr) {
  auto record = [&](const Range& r, bool write) {
    if (r.lo >= r.hi) return;
    // Kernels reuse a few buffers over and over: keep one record per (range, kind).
    for (Access& a : accesses_) {
      if (a.write == write && a.range.space == r.space && a.range.lo == r.lo && a.range.hi == r.hi) {
        if (end >= a.end) a.end = end, a.instr = instr;
        return;
      }
    }
    accesses_.push_back({r, write, end, instr});
  };
  for (const Range& r : reads) record(r, false);
  for (const Range& w : writes) {
    record(w, true);
    mark_written(w);
  }
}

bool Scoreboard::written(const Range& r) const {
  if (r.lo >= r.hi) return true;
  auto space = written_.find(r.space);
  if (space == written_.end()) return false;
  const auto& m = space->second;
  auto it = m.upper_bound(r.lo);
  if (it == m.begin()) return false;
  --it;  // the interval starting at or before r.lo
  return it->first <= r.lo && it->second >= r.hi;
}

void Scoreboard::mark_written(const Range& r) {
  if (r.lo >= r.hi) return;
  auto& m = written_[r.space];
  std::uint64_t lo = r.lo, hi = r.hi;
  auto it = m.upper_bound(lo);
  if (it != m.begin()) {
    auto prev = std::prev(it);
    if (prev->second >= lo) {
      lo = prev->first;
      hi = std::max(hi, prev->second);
      it = m.erase(prev);
    }
  }
  while (it != m.end() && it->first <= hi) {
    hi = std::max(hi, it->second);
    it = m.erase(it);
  }
  m.emplace(lo, hi);
}

}  // namespace treesim::timing
