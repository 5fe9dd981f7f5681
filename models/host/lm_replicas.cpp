#include "models/host/lm_replicas.h"

#include <cstring>

#include "sim/program/checked_program.h"

namespace treesim::host {

void LmReplicas::add(std::uint64_t lo, std::uint64_t hi, std::vector<std::uint32_t> source) {
  if (lo < hi) entries_.push_back({lo, hi, std::move(source)});
}

void LmReplicas::copy_out(const Entry& e, const LmView& pes) const {
  for (std::size_t q = 0; q < e.source.size(); ++q)
    if (e.source[q] != q) std::memcpy(pes.lm(q) + e.lo, pes.lm(e.source[q]) + e.lo, e.hi - e.lo);
}

void LmReplicas::materialize(const std::vector<timing::Range>& ranges, const LmView& pes) {
  for (std::size_t i = 0; i < entries_.size();) {
    bool hit = false;
    for (const timing::Range& r : ranges)
      hit = hit || (r.space == program::kLmSpace && r.lo < entries_[i].hi && entries_[i].lo < r.hi);
    if (!hit) {
      ++i;
      continue;
    }
    copy_out(entries_[i], pes);
    entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

void LmReplicas::materialize_partial(std::uint64_t lo, std::uint64_t hi, const LmView& pes) {
  for (std::size_t i = 0; i < entries_.size();) {
    const Entry& e = entries_[i];
    const bool overlaps = lo < e.hi && e.lo < hi, inside = e.lo <= lo && hi <= e.hi;
    if (!overlaps || inside) {
      ++i;
      continue;
    }
    copy_out(e, pes);
    entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

void LmReplicas::materialize_all(const LmView& pes) {
  for (const Entry& e : entries_) copy_out(e, pes);
  entries_.clear();
}

void LmReplicas::overwrite(std::uint64_t lo, std::uint64_t hi, const std::vector<bool>& covered,
                           const LmView& pes) {
  for (std::size_t i = 0; i < entries_.size();) {
    const Entry& e = entries_[i];
    if (!(lo < e.hi && e.lo < hi)) {
      ++i;
      continue;
    }
    bool replaced = lo <= e.lo && e.hi <= hi;
    for (std::size_t q = 0; q < e.source.size() && replaced; ++q) replaced = e.source[q] == q || covered[q];
    if (!replaced) copy_out(e, pes);
    entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(i));
  }
}

bool LmReplicas::overlaps(std::uint64_t lo, std::uint64_t hi) const {
  for (const Entry& e : entries_)
    if (lo < e.hi && e.lo < hi) return true;
  return false;
}

const std::vector<std::uint32_t>* LmReplicas::sources(std::uint64_t lo, std::uint64_t hi) const {
  for (const Entry& e : entries_)
    if (e.lo <= lo && hi <= e.hi && lo < hi) return &e.source;
  return nullptr;
}

std::uint32_t LmReplicas::source(std::uint32_t q, std::uint64_t lo, std::uint64_t hi) const {
  for (const Entry& e : entries_)
    if (e.lo <= lo && hi <= e.hi && lo < hi) return e.source[q];
  return q;
}

}  // namespace treesim::host
