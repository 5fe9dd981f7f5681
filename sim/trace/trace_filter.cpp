#include "sim/trace/trace_filter.h"

#include <fnmatch.h>

#include <map>

#include "sim/trace/timeline_key.h"

namespace treesim::trace {

std::vector<topology::Unit> tree_order(const topology::Topology& topo) {
  std::vector<topology::Unit> order, stack{topo.board()};
  while (!stack.empty()) {
    const topology::Unit u = stack.back();
    stack.pop_back();
    order.push_back(u);
    std::vector<topology::Unit> kids = topo.children(u);
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.push_back(*it);
  }
  return order;
}

Selection select_units(const topology::Topology& topo, const TraceFilter& filter, const TraceLog& log,
                       bool representatives) {
  const std::size_t n = topo.total_units();
  Selection s{std::vector<char>(n, 0), std::vector<char>(n, 0), std::vector<std::uint64_t>(n, 0)};
  const bool pick = representatives && filter.units.empty();
  // Per level: the distinct timelines seen so far and the unit that shows each.
  std::map<int, KeyTable<topology::Unit>> seen;
  for (topology::Unit u : tree_order(topo)) {
    const int level = topo.level_of(u);
    if (filter.depth >= 0 && level >= filter.depth) continue;
    if (!filter.units.empty() && ::fnmatch(filter.units.c_str(), topo.path_name(u).c_str(), 0) != 0) continue;
    if (pick) {
      TimelineKey key;
      for (Resource r : log.resources(level)) key.add(static_cast<int>(r.index()), log.holds(u, level, r));
      const topology::Unit* first = seen[level].find(key);
      if (first) {
        ++s.alike[*first];
        continue;
      }
      seen[level].insert(std::move(key), u);
    }
    s.traced[u] = 1;
    s.alike[u] = 1;
  }
  for (topology::Unit u = n; u-- > 0;) {
    if (s.traced[u]) s.scope[u] = 1;
    if (s.scope[u])
      if (auto p = topo.parent(u)) s.scope[*p] = 1;
  }
  return s;
}

}  // namespace treesim::trace
