#include "sim/trace/trace_log.h"

#include <algorithm>

namespace treesim::trace {

namespace {

std::uint64_t key(topology::Unit unit, Resource r) {
  return static_cast<std::uint64_t>(unit) * 256 + static_cast<std::uint64_t>(r.index());
}

}  // namespace

void TraceLog::declare(int level, Resource r) {
  std::vector<Resource>& list = declared_[level];
  if (std::find(list.begin(), list.end(), r) == list.end()) list.push_back(r);
}

const std::vector<Resource>& TraceLog::resources(int level) const {
  static const std::vector<Resource> kNone;
  auto it = declared_.find(level);
  return it == declared_.end() ? kNone : it->second;
}

void TraceLog::add(std::vector<Hold>& list, const Hold& h) {
  if (!list.empty() && list.back().instr == h.instr && list.back().end == h.start) {
    list.back().end = h.end;
    list.back().work += h.work;
    return;
  }
  list.push_back(h);
}

void TraceLog::hold(topology::Unit unit, Resource r, std::uint64_t start, std::uint64_t end,
                    std::uint64_t work) {
  if (end <= start) return;  // a hold of no time leaves no mark
  add(own_[key(unit, r)], {start, end, work, current_});
}

void TraceLog::hold_level(int level, Resource r, std::uint64_t start, std::uint64_t end, std::uint64_t work) {
  if (end <= start) return;
  add(level_[{level, r.index()}], {start, end, work, current_});
}

std::vector<Hold> TraceLog::holds(topology::Unit unit, int level, Resource r) const {
  std::vector<Hold> out;
  auto own = own_.find(key(unit, r));
  auto shared = level_.find({level, r.index()});
  if (own != own_.end()) out = own->second;
  if (shared != level_.end()) out.insert(out.end(), shared->second.begin(), shared->second.end());
  // Each list runs in time order (a resource is held once at a time); their union needs sorting.
  if (own != own_.end() && shared != level_.end())
    std::stable_sort(out.begin(), out.end(), [](const Hold& a, const Hold& b) { return a.start < b.start; });
  return out;
}

}  // namespace treesim::trace
