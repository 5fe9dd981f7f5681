#include "sim/layout/convert.h"

#include "sim/layout/axis_values.h"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

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

ConversionPlan plan_conversion(const BoundLayout& from, const BoundLayout& to, bool group_alike) {
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
  // A slot is pe · addresses + address (times lanes): addresses spans both layouts' footprints, not
  // the LM's capacity, which is 2^62 for a layout bound without the capacity check and would wrap.
  const std::uint64_t addresses =
      std::max({from.cosize(from.addr_target()), to.cosize(to.addr_target()), std::uint64_t{1}});

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

  Location loc;
  // Scratch for one element, reset by bumping `epoch` rather than clearing: per level and unit, the
  // first source PE inside it and whether a link up from / down to it is crossed; per level and
  // parent, whether its port already sends the element.
  std::uint64_t epoch = 0;
  struct Marks {
    std::vector<std::uint64_t> source_epoch, source_pe, up_epoch, down_epoch, parent_epoch;
  };
  std::vector<Marks> marks(levels);
  for (std::size_t lv = 0; lv < levels; ++lv) {
    const std::uint64_t units = pe_count / from.pe_weight(lv), parents = down_port[lv].size();
    marks[lv] = {std::vector<std::uint64_t>(units, 0), std::vector<std::uint64_t>(units, 0),
                 std::vector<std::uint64_t>(units, 0), std::vector<std::uint64_t>(units, 0),
                 std::vector<std::uint64_t>(parents, 0)};
  }
  // Each unit's parent (its global index one level up), without a division per link.
  std::vector<std::vector<std::uint64_t>> parent_of(levels);
  for (std::size_t lv = 1; lv < levels; ++lv) {
    parent_of[lv].resize(pe_count / from.pe_weight(lv));
    for (std::uint64_t u = 0; u < parent_of[lv].size(); ++u) parent_of[lv][u] = u / from.fanout(lv);
  }
  std::vector<std::uint64_t> source_slots;
  std::vector<std::pair<std::size_t, std::uint64_t>> down_links, up_links;  // (level, unit)

  // A replica's place is its element's replica-0 place plus an offset that depends on the replica
  // only (broadcast digits and omitted levels are digits of their own, added without carry): the
  // offsets of every replica's PE, units and LM slot, taken once from element 0, spare a locate per
  // replica and element.
  struct Offsets {
    std::vector<std::uint64_t> pe, slot, unit;  // unit: [replica × levels + level]
  };
  auto offsets_of = [&](const BoundLayout& l) {
    Offsets o;
    const std::vector<std::uint64_t> zero(l.rank(), 0);
    Location first, here;
    l.locate_into(zero.data(), first, 0);
    const std::uint64_t pe0 = l.pe_id(first.units);
    const std::uint64_t slot0 = pe0 * addresses * words + first.addr * words + first.lane;
    for (std::uint64_t r = 0; r < l.replicas(); ++r) {
      l.locate_into(zero.data(), here, r);
      const std::uint64_t pe = l.pe_id(here.units);
      o.pe.push_back(pe - pe0);
      o.slot.push_back(pe * addresses * words + here.addr * words + here.lane - slot0);
      for (std::size_t lv = 0; lv < levels; ++lv) o.unit.push_back(unit_at(pe, lv) - unit_at(pe0, lv));
    }
    return o;
  };
  const Offsets from_off = offsets_of(from), to_off = offsets_of(to);
  std::vector<std::uint64_t> src_units(levels), dst_units(levels);

  // One element's copies and link crossings, counted `weight` times.
  // With `in_place` false, a destination slot that already holds the element counts as a copy inside
  // its PE (the caller corrects the two counts; no link differs).
  auto account = [&](const std::vector<std::uint64_t>& index, std::uint64_t weight, bool in_place = true) {
    const std::uint64_t wbytes = weight * bytes;
    ++epoch;
    source_slots.clear();
    from.locate_into(index.data(), loc, 0);
    const std::uint64_t first_source = from.pe_id(loc.units);
    const std::uint64_t src_slot = first_source * addresses * words + loc.addr * words + loc.lane;
    for (std::size_t lv = 0; lv < levels; ++lv) src_units[lv] = unit_at(first_source, lv);
    for (std::uint64_t r = 0; r < from.replicas(); ++r) {
      const std::uint64_t pe = first_source + from_off.pe[r];
      source_slots.push_back(src_slot + from_off.slot[r]);
      const std::uint64_t* du = &from_off.unit[r * levels];
      for (std::size_t lv = 0; lv < levels; ++lv) {
        const std::uint64_t u = src_units[lv] + du[lv];
        if (marks[lv].source_epoch[u] == epoch) continue;
        marks[lv].source_epoch[u] = epoch;
        marks[lv].source_pe[u] = pe;
      }
    }
    if (source_slots.size() > 1) std::sort(source_slots.begin(), source_slots.end());
    down_links.clear();
    up_links.clear();
    auto cross = [&](std::vector<std::uint64_t>& seen, std::size_t lv, std::uint64_t unit,
                     std::vector<std::pair<std::size_t, std::uint64_t>>& links) {
      if (seen[unit] == epoch) return;
      seen[unit] = epoch;
      links.emplace_back(lv, unit);
    };
    to.locate_into(index.data(), loc, 0);
    const std::uint64_t dst_pe = to.pe_id(loc.units);
    const std::uint64_t dst_slot = dst_pe * addresses * words + loc.addr * words + loc.lane;
    for (std::size_t lv = 0; lv < levels; ++lv) dst_units[lv] = unit_at(dst_pe, lv);
    for (std::uint64_t r = 0; r < to.replicas(); ++r) {
      plan.destination_slots += weight;
      if (in_place &&
          std::binary_search(source_slots.begin(), source_slots.end(), dst_slot + to_off.slot[r])) {
        plan.in_place += weight;
        continue;
      }
      const std::uint64_t* du = &to_off.unit[r * levels];
      // Deepest level whose unit containing the destination also holds a source.
      std::size_t depth = 0;  // number of levels shared: 0 = only the board
      std::uint64_t src = first_source;
      for (std::size_t lv = 0; lv < levels; ++lv) {
        const std::uint64_t u = dst_units[lv] + du[lv];
        if (marks[lv].source_epoch[u] != epoch) break;
        depth = lv + 1;
        src = marks[lv].source_pe[u];
      }
      plan.copies_by_lca[depth] += weight;
      // Links crossed: levels depth..L-1 up from the source, then down to the destination. A crossing
      // always runs from its depth to the PEs, so a link already crossed has its path below it (up:
      // the same source, the first in its unit) or above it down to the depth (down: destinations
      // sharing a unit share their depth) crossed too.
      if (depth < levels && marks[depth].up_epoch[unit_at(src, depth)] != epoch)
        for (std::size_t lv = depth; lv < levels; ++lv)
          cross(marks[lv].up_epoch, lv, unit_at(src, lv), up_links);
      for (std::size_t lv = levels; lv-- > depth;) {
        const std::uint64_t u = dst_units[lv] + du[lv];
        if (marks[lv].down_epoch[u] == epoch) break;
        marks[lv].down_epoch[u] = epoch;
        down_links.emplace_back(lv, u);
      }
    }
    // Each element crosses a link once, however many destinations below it need it.
    for (const auto& [lv, unit] : down_links) {
      const std::uint64_t parent = lv == 0 ? 0 : parent_of[lv][unit];
      plan.levels[lv].down_delivered_bytes += wbytes;
      if (marks[lv].parent_epoch[parent] == epoch) continue;
      marks[lv].parent_epoch[parent] = epoch;
      plan.levels[lv].down_sent_bytes += wbytes;
      down_port[lv][parent] += wbytes;
    }
    for (const auto& [lv, unit] : up_links) {
      const std::uint64_t parent = lv == 0 ? 0 : parent_of[lv][unit];
      plan.levels[lv].up_sent_bytes += wbytes;
      plan.levels[lv].up_delivered_bytes += wbytes;
      up_port[lv][parent] += wbytes;
    }
  };

  // Two elements whose replica-0 places have the same source and destination PE move alike (a
  // replica's place is replica 0's plus an offset of its own): each such class is walked once, over
  // every replica, and counted by its size. On a big machine with replicated layouts this is the
  // difference between seconds and minutes. Only whether a destination slot already holds the
  // element depends on the LM slots, and such a slot is in a PE that holds a source, where no link
  // is crossed: it moves a count from copies inside a PE to in place, and depends only on the
  // destination − source slot. An element's replica-0 PE and slot are sums of per-axis tables
  // (axis_values.h).
  const std::size_t rank = from.rank();
  const std::vector<std::uint64_t>& shape = from.shape();
  struct AxisTables {
    std::vector<std::vector<std::uint64_t>> pe, slot;
  };
  auto tables_of = [&](const BoundLayout& l) {
    AxisTables t;
    std::vector<AxisValues> units;
    for (std::size_t lv = 0; lv < levels; ++lv) units.emplace_back(l, static_cast<int>(lv));
    const AxisValues addr(l, l.addr_target()), lane(l, l.lane_target());
    for (std::size_t d = 0; d < rank; ++d) {
      auto& pe = t.pe.emplace_back(shape[d], 0);
      auto& slot = t.slot.emplace_back(shape[d], 0);
      for (std::uint64_t i = 0; i < shape[d]; ++i) {
        for (std::size_t lv = 0; lv < levels; ++lv) pe[i] += units[lv].at(d, i) * l.pe_weight(lv);
        slot[i] = pe[i] * addresses * words + addr.at(d, i) * words + lane.at(d, i);
      }
    }
    return t;
  };
  std::vector<std::uint64_t> index(rank, 0);
  auto unflatten = [&](std::uint64_t e) {
    for (std::size_t d = rank; d-- > 0;) {
      index[d] = e % shape[d];
      e /= shape[d];
    }
  };
  const std::uint64_t logical = from.logical_elements();
  if (!group_alike) {
    for (std::uint64_t e = 0; e < logical; ++e) {
      unflatten(e);
      account(index, 1);
    }
  } else if (rank == 0) {
    account(index, 1);
  } else if (logical > 0) {
    const AxisTables ft = tables_of(from), tt = tables_of(to);
    std::vector<std::uint64_t> source_pes = from_off.pe, source_slot_offsets = from_off.slot;
    std::sort(source_pes.begin(), source_pes.end());
    std::sort(source_slot_offsets.begin(), source_slot_offsets.end());
    struct Key {
      std::uint64_t src_pe, dst_pe;
      bool operator==(const Key& o) const { return src_pe == o.src_pe && dst_pe == o.dst_pe; }
    };
    struct KeyHash {
      std::size_t operator()(const Key& k) const {
        return static_cast<std::size_t>((k.src_pe * 0x9E3779B97F4A7C15ull) ^ (k.dst_pe * 0x100000001B3ull));
      }
    };
    struct Members {
      std::uint64_t first = 0, count = 0;  // an element of the class (linear index) and the class size
      bool shared = false;                 // a destination PE also holds a source
    };
    std::unordered_map<Key, Members, KeyHash> classes;
    std::unordered_map<std::uint64_t, std::uint64_t> in_place_by_delta;  // destination − source slot
    std::uint64_t in_place = 0;
    // The last axis in runs where both layouts keep the PE: a run is one class (its elements'
    // slots still differ, which only shared classes look at).
    const std::size_t last = rank - 1;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;  // [begin, end) of the last axis
    for (std::uint64_t c = 0; c < shape[last]; ++c)
      if (runs.empty() || ft.pe[last][c] != ft.pe[last][runs.back().first] ||
          tt.pe[last][c] != tt.pe[last][runs.back().first])
        runs.emplace_back(c, c + 1);
      else
        runs.back().second = c + 1;
    std::vector<std::uint64_t> lead(rank, 0);  // indices of the leading axes (lead[last] unused)
    for (std::uint64_t row = 0; row < logical / shape[last]; ++row) {
      std::uint64_t src_row = 0, dst_row = 0, slot_row = 0;
      for (std::size_t d = 0; d < last; ++d) {
        src_row += ft.pe[d][lead[d]], dst_row += tt.pe[d][lead[d]];
        slot_row += tt.slot[d][lead[d]] - ft.slot[d][lead[d]];
      }
      for (const auto& [begin, end] : runs) {
        const std::uint64_t src_pe = src_row + ft.pe[last][begin], dst_pe = dst_row + tt.pe[last][begin];
        auto [it, fresh] =
            classes.try_emplace(Key{src_pe, dst_pe}, Members{row * shape[last] + begin, 0, false});
        if (fresh)
          for (std::uint64_t r = 0; r < to.replicas() && !it->second.shared; ++r)
            it->second.shared =
                std::binary_search(source_pes.begin(), source_pes.end(), dst_pe + to_off.pe[r] - src_pe);
        it->second.count += end - begin;
        if (!it->second.shared) continue;
        for (std::uint64_t c = begin; c < end; ++c) {
          const std::uint64_t delta = slot_row + tt.slot[last][c] - ft.slot[last][c];
          auto [known, first_time] = in_place_by_delta.try_emplace(delta, 0);
          if (first_time)
            for (std::uint64_t r = 0; r < to.replicas(); ++r)
              known->second += std::binary_search(source_slot_offsets.begin(), source_slot_offsets.end(),
                                                  delta + to_off.slot[r]);
          in_place += known->second;
        }
      }
      for (std::size_t d = last; d-- > 0;) {  // the next row, row-major
        if (++lead[d] < shape[d]) break;
        lead[d] = 0;
      }
    }
    for (const auto& [k, m] : classes) {
      unflatten(m.first);
      account(index, m.count, /*in_place=*/false);
    }
    plan.in_place += in_place;
    plan.copies_by_lca[levels] -= in_place;
  }
  for (std::size_t lv = 0; lv < levels; ++lv) {
    plan.levels[lv].busiest_down_port_bytes = *std::max_element(down_port[lv].begin(), down_port[lv].end());
    plan.levels[lv].busiest_up_port_bytes = *std::max_element(up_port[lv].begin(), up_port[lv].end());
  }
  return plan;
}

}  // namespace treesim::layout
