#include "sim/layout/convert.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace treesim::layout {

std::uint64_t ConversionPlan::copies() const {
  std::uint64_t n = 0;
  for (auto c : copies_by_lca) n += c;
  return n;
}

std::uint64_t ConversionPlan::link_bytes() const {
  std::uint64_t n = 0;
  for (const auto& l : levels) n += l.up_sent_bytes + l.down_sent_bytes;
  return n;
}

ConversionPlan plan_conversion(const BoundLayout& from, const BoundLayout& to) {
  require_resident(from);
  require_resident(to);
  if (from.shape() != to.shape() || from.element_bytes() != to.element_bytes() ||
      from.level_count() != to.level_count())
    throw std::invalid_argument("plan_conversion: layouts of different tensors or machines");
  const std::size_t levels = from.level_count();
  for (std::size_t lv = 0; lv < levels; ++lv)
    if (from.fanout(lv) != to.fanout(lv)) throw std::invalid_argument("plan_conversion: different machines");
  const std::uint64_t bytes = from.element_bytes(), words = from.words_per_address();
  const std::uint64_t pe_count = from.pe_weight(0) * from.fanout(0);

  ConversionPlan plan;
  plan.copies_by_lca.assign(levels + 1, 0);
  plan.levels.resize(levels);
  // Per-port element counts for the busiest ports: index = (level, parent's global index).
  std::vector<std::vector<std::uint64_t>> down_port(levels), up_port(levels);
  for (std::size_t lv = 0; lv < levels; ++lv) {
    std::uint64_t parents = lv == 0 ? 1 : pe_count / from.pe_weight(lv - 1);
    down_port[lv].assign(parents, 0);
    up_port[lv].assign(parents, 0);
  }
  // Global index of the unit at `level` that contains PE `pe`.
  auto unit_at = [&](std::uint64_t pe, std::size_t level) { return pe / from.pe_weight(level); };

  std::vector<std::uint64_t> index(from.rank(), 0);
  Location loc;
  std::unordered_set<std::uint64_t> source_slots;
  std::vector<std::unordered_map<std::uint64_t, std::uint64_t>> source_at(levels);  // unit → a source PE
  std::unordered_set<std::uint64_t> down_links, up_links;  // (level, unit) pairs, packed
  const std::uint64_t logical = from.logical_elements();
  auto key = [&](std::size_t level, std::uint64_t unit) { return unit * (levels + 1) + level; };

  for (std::uint64_t e = 0; e < logical; ++e) {
    for (std::size_t d = from.rank(), rest = e; d-- > 0;) {
      index[d] = rest % from.shape()[d];
      rest /= from.shape()[d];
    }
    source_slots.clear();
    for (auto& m : source_at) m.clear();
    for (std::uint64_t r = 0; r < from.replicas(); ++r) {
      from.locate_into(index.data(), loc, r);
      std::uint64_t pe = from.pe_id(loc.units);
      source_slots.insert(pe * from.lm_addresses() * words + loc.addr * words + loc.lane);
      for (std::size_t lv = 0; lv < levels; ++lv) source_at[lv].emplace(unit_at(pe, lv), pe);
    }
    down_links.clear();
    up_links.clear();
    for (std::uint64_t r = 0; r < to.replicas(); ++r) {
      to.locate_into(index.data(), loc, r);
      ++plan.destination_slots;
      std::uint64_t pe = to.pe_id(loc.units);
      if (source_slots.count(pe * from.lm_addresses() * words + loc.addr * words + loc.lane)) {
        ++plan.in_place;
        continue;
      }
      // Deepest level whose unit containing the destination also holds a source.
      std::size_t depth = 0;  // number of levels shared: 0 = only the board
      std::uint64_t src = 0;
      for (std::size_t lv = 0; lv < levels; ++lv) {
        auto it = source_at[lv].find(unit_at(pe, lv));
        if (it == source_at[lv].end()) break;
        depth = lv + 1;
        src = it->second;
      }
      if (depth == 0) src = source_at[levels - 1].begin()->second;
      ++plan.copies_by_lca[depth];
      // Links crossed: levels depth..L-1 up from the source, then down to the destination.
      for (std::size_t lv = depth; lv < levels; ++lv) {
        up_links.insert(key(lv, unit_at(src, lv)));
        down_links.insert(key(lv, unit_at(pe, lv)));
      }
    }
    // Each element crosses a link once, however many destinations below it need it.
    std::unordered_set<std::uint64_t> parents_sending;
    for (std::uint64_t k : down_links) {
      std::size_t lv = k % (levels + 1);
      std::uint64_t unit = k / (levels + 1);
      std::uint64_t parent = lv == 0 ? 0 : unit / from.fanout(lv);
      plan.levels[lv].down_delivered_bytes += bytes;
      if (parents_sending.insert(key(lv, parent)).second) {
        plan.levels[lv].down_sent_bytes += bytes;
        down_port[lv][parent] += bytes;
      }
    }
    for (std::uint64_t k : up_links) {
      std::size_t lv = k % (levels + 1);
      std::uint64_t unit = k / (levels + 1);
      std::uint64_t parent = lv == 0 ? 0 : unit / from.fanout(lv);
      plan.levels[lv].up_sent_bytes += bytes;
      plan.levels[lv].up_delivered_bytes += bytes;
      up_port[lv][parent] += bytes;
    }
  }
  for (std::size_t lv = 0; lv < levels; ++lv) {
    plan.levels[lv].busiest_down_port_bytes = *std::max_element(down_port[lv].begin(), down_port[lv].end());
    plan.levels[lv].busiest_up_port_bytes = *std::max_element(up_port[lv].begin(), up_port[lv].end());
  }
  return plan;
}

}  // namespace treesim::layout
