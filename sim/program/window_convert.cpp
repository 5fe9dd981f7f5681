#include "sim/program/window_convert.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "sim/layout/axis_values.h"
#include "sim/program/halo.h"
#include "sim/program/window.h"

namespace treesim::program {
namespace {

// The PEs holding each element of `from`: replica 0's PE is a sum of per-axis tables
// (axis_values.h), and replica r's is it plus an offset of the replica's own (as in convert.cpp).
class Holders {
 public:
  explicit Holders(const layout::BoundLayout& from) : shape_(from.shape()) {
    const std::vector<std::uint64_t> zero(from.rank(), 0);
    layout::Location loc;
    from.locate_into(zero.data(), loc, 0);
    const std::uint64_t pe0 = from.pe_id(loc.units);
    for (std::uint64_t r = 0; r < from.replicas(); ++r) {
      from.locate_into(zero.data(), loc, r);
      offsets_.push_back(from.pe_id(loc.units) - pe0);
    }
    std::vector<layout::AxisValues> units;
    for (std::size_t lv = 0; lv < from.level_count(); ++lv) units.emplace_back(from, static_cast<int>(lv));
    for (std::size_t d = 0; d < shape_.size(); ++d) {
      auto& t = tables_.emplace_back(shape_[d], 0);
      for (std::uint64_t i = 0; i < shape_[d]; ++i)
        for (std::size_t lv = 0; lv < units.size(); ++lv) t[i] += units[lv].at(d, i) * from.pe_weight(lv);
    }
  }
  // f(e, pe of replica 0) for the elements [first, first + count), stepping the index row-major.
  template <typename F>
  void walk(std::uint64_t first, std::uint64_t count, F&& f) {
    const std::size_t rank = shape_.size();
    index_.assign(rank, 0);
    for (std::size_t d = rank, e = first; d-- > 0;) index_[d] = e % shape_[d], e /= shape_[d];
    std::uint64_t lead = 0;  // the axes before the last
    for (std::size_t d = 0; d + 1 < rank; ++d) lead += tables_[d][index_[d]];
    for (std::uint64_t e = first; e < first + count; ++e) {
      f(e, lead + tables_[rank - 1][index_[rank - 1]]);
      for (std::size_t d = rank; d-- > 0;) {  // the next index, row-major
        if (++index_[d] < shape_[d]) break;
        index_[d] = 0;
      }
      if (index_[rank - 1] == 0 && rank > 1) {
        lead = 0;
        for (std::size_t d = 0; d + 1 < rank; ++d) lead += tables_[d][index_[d]];
      }
    }
  }
  // What replica r's PE adds to replica 0's.
  const std::vector<std::uint64_t>& offsets() const { return offsets_; }

 private:
  std::vector<std::uint64_t> shape_, offsets_, index_;
  std::vector<std::vector<std::uint64_t>> tables_;
};

// What the slots of one PE read (PEs that hold the same rows and columns read the same): their
// distinct elements, and how many slots read each (in the runs' order).
struct ViewNeeds {
  std::vector<ElementRun> runs;
  std::vector<std::uint32_t> slots;
};

ViewNeeds view_needs(std::vector<std::uint64_t>& e) {
  ViewNeeds out;
  if (e.empty()) return out;
  const auto [lo, hi] = std::minmax_element(e.begin(), e.end());
  const std::uint64_t base = *lo, range = *hi - *lo + 1;
  auto add = [&](std::uint64_t x, std::uint32_t n) {
    if (!out.runs.empty() && out.runs.back().first + out.runs.back().count == x)
      ++out.runs.back().count;
    else
      out.runs.push_back({x, 1});
    out.slots.push_back(n);
  };
  if (range <= 16 * e.size()) {
    std::vector<std::uint32_t> count(range, 0);
    for (std::uint64_t x : e) ++count[x - base];
    for (std::uint64_t i = 0; i < range; ++i)
      if (count[i]) add(base + i, count[i]);
    return out;
  }
  std::sort(e.begin(), e.end());
  for (std::size_t i = 0; i < e.size();) {
    std::size_t j = i;
    while (j < e.size() && e[j] == e[i]) ++j;
    add(e[i], static_cast<std::uint32_t>(j - i));
    i = j;
  }
  return out;
}

}  // namespace

layout::ConversionPlan window_conversion(const Window& w, const std::vector<std::uint64_t>& tensor,
                                         const std::vector<std::uint64_t>& offset,
                                         const layout::BoundLayout& from, const layout::BoundLayout& to) {
  layout::require_resident(from);
  layout::require_resident(to);
  const std::size_t levels = to.level_count();
  if (from.level_count() != levels || from.element_bytes() != to.element_bytes())
    throw std::invalid_argument("window_conversion: layouts of different machines or element types");
  const std::uint64_t eb = to.element_bytes(), pe_count = to.pe_count();
  // unit[lv][pe]: the unit of level lv holding PE pe (a table: this runs per element and reader).
  std::vector<std::vector<std::uint32_t>> unit(levels, std::vector<std::uint32_t>(pe_count));
  for (std::size_t lv = 0; lv < levels; ++lv)
    for (std::uint64_t pe = 0; pe < pe_count; ++pe)
      unit[lv][pe] = static_cast<std::uint32_t>(pe / to.pe_weight(lv));
  // Levels the two PEs share, from the root (0: only the board).
  auto shared = [&](std::uint64_t a, std::uint64_t b) {
    std::size_t d = 0;
    while (d < levels && unit[d][a] == unit[d][b]) ++d;
    return d;
  };
  Holders holders(from);
  // The copy nearest to PE `pe` of an element whose replica 0 is on h0 (the deepest shared unit; the
  // lowest PE on ties), and the levels they share.
  auto nearest = [&](std::uint64_t h0, std::uint64_t pe) {
    std::pair<std::size_t, std::uint64_t> best{0, UINT64_MAX};
    for (std::uint64_t off : holders.offsets()) {
      const std::uint64_t h = h0 + off;
      const std::size_t d = shared(h, pe);
      if (best.second == UINT64_MAX || d > best.first || (d == best.first && h < best.second)) best = {d, h};
    }
    return best;
  };

  layout::ConversionPlan plan;
  plan.copies_by_lca.assign(levels + 1, 0);
  plan.levels.resize(levels);

  // PEs that hold the same rows and columns (copies of the block along a level `to` does not use)
  // read the same elements: one view each, with its PEs.
  std::map<std::vector<std::vector<layout::IndexRun>>, std::uint32_t, UnitAxesLess> view_of;
  std::vector<ViewNeeds> views;
  std::vector<std::vector<std::uint32_t>> view_pes;
  std::vector<std::uint64_t> elements;
  for_each_used_pe(to, [&](std::uint64_t pe, const layout::UnitView& v) {
    auto [it, fresh] = view_of.try_emplace(v.axes, static_cast<std::uint32_t>(views.size()));
    if (fresh) {
      elements.clear();
      for (auto [r0, rn] : held_intervals(v.axes[0], to.shape()[0]))
        for (auto [c0, cn] : held_intervals(v.axes[1], to.shape()[1]))
          window_elements(w, tensor, {offset[0] + r0, offset[1] + c0}, {rn, cn}, elements);
      views.push_back(view_needs(elements));
      view_pes.emplace_back();
    }
    view_pes[it->second].push_back(static_cast<std::uint32_t>(pe));
  });
  view_of.clear();

  // Slots by the level their element comes through: per view, the depths of its PEs from each
  // holder (elements in runs of one holder share them).
  std::uint64_t lo = UINT64_MAX, hi = 0;
  std::vector<std::uint64_t> depths(levels + 1);
  for (std::size_t v = 0; v < views.size(); ++v) {
    const ViewNeeds& n = views[v];
    if (n.runs.empty()) continue;
    lo = std::min(lo, n.runs.front().first);
    hi = std::max(hi, n.runs.back().first + n.runs.back().count);
    std::size_t k = 0;
    std::uint64_t last_h = UINT64_MAX;
    for (const ElementRun& r : n.runs)
      holders.walk(r.first, r.count, [&](std::uint64_t, std::uint64_t h0) {
        if (h0 != last_h) {
          last_h = h0;
          std::fill(depths.begin(), depths.end(), 0);
          for (std::uint32_t pe : view_pes[v]) ++depths[nearest(h0, pe).first];
        }
        for (std::size_t d = 0; d <= levels; ++d) plan.copies_by_lca[d] += n.slots[k] * depths[d];
        plan.destination_slots += n.slots[k++] * view_pes[v].size();
      });
  }
  if (lo >= hi) return plan;

  // The views that read each element (counted, then filled, in view order).
  std::vector<std::uint64_t> first(hi - lo + 1, 0);
  for (const ViewNeeds& n : views)
    for (const ElementRun& r : n.runs)
      for (std::uint64_t e = r.first; e < r.first + r.count; ++e) ++first[e - lo + 1];
  for (std::size_t i = 1; i < first.size(); ++i) first[i] += first[i - 1];
  std::vector<std::uint32_t> readers(first.back());
  {
    std::vector<std::uint64_t> at(first.begin(), first.end() - 1);
    for (std::size_t v = 0; v < views.size(); ++v)
      for (const ElementRun& r : views[v].runs)
        for (std::uint64_t e = r.first; e < r.first + r.count; ++e)
          readers[at[e - lo]++] = static_cast<std::uint32_t>(v);
  }
  views.clear();

  // Elements read by the same views from the same holder move alike: each such class is walked
  // once, over its readers, and counted by its size.
  std::map<std::vector<std::uint64_t>, std::uint64_t> classes;  // (holder, views...) → elements
  std::vector<std::uint64_t> key, last;
  auto last_class = classes.end();
  holders.walk(lo, hi - lo, [&](std::uint64_t e, std::uint64_t h0) {
    if (first[e - lo] == first[e - lo + 1]) return;
    key.assign(1, h0);
    key.insert(key.end(), readers.begin() + static_cast<std::ptrdiff_t>(first[e - lo]),
               readers.begin() + static_cast<std::ptrdiff_t>(first[e - lo + 1]));
    if (last_class == classes.end() || key != last)
      last_class = classes.try_emplace(key, 0).first, last = key;
    ++last_class->second;
  });

  // Per class: the links up from each reader's nearest copy and down to the reader, each once. A
  // link already crossed has the rest of its path crossed too: up, the same copy's path from below
  // it; down, the path above it (readers below one unit share their depth).
  std::vector<std::vector<std::uint64_t>> down_mark(levels), up_mark(levels), parent_mark(levels),
      down_port(levels), up_port(levels);
  for (std::size_t lv = 0; lv < levels; ++lv) {
    const std::uint64_t parents = lv == 0 ? 1 : pe_count / to.pe_weight(lv - 1);
    down_mark[lv].assign(pe_count / to.pe_weight(lv), 0);
    up_mark[lv].assign(pe_count / to.pe_weight(lv), 0);
    parent_mark[lv].assign(parents, 0);
    down_port[lv].assign(parents, 0);
    up_port[lv].assign(parents, 0);
  }
  auto parent_of = [&](std::uint64_t pe, std::size_t lv) -> std::uint64_t {
    return lv == 0 ? 0 : unit[lv - 1][pe];
  };
  std::uint64_t epoch = 0;
  for (const auto& [k, count] : classes) {
    ++epoch;
    const std::uint64_t h0 = k[0], bytes = count * eb;
    for (std::size_t i = 1; i < k.size(); ++i)
      for (std::uint32_t pe : view_pes[k[i]]) {
        const auto [d, h] = nearest(h0, pe);
        if (d == levels) continue;  // its own PE: the copy unit
        for (std::size_t lv = d; lv < levels; ++lv) {
          const std::uint64_t u = unit[lv][h];
          if (up_mark[lv][u] == epoch) break;
          up_mark[lv][u] = epoch;
          plan.levels[lv].up_sent_bytes += bytes;
          plan.levels[lv].up_delivered_bytes += bytes;
          up_port[lv][parent_of(h, lv)] += bytes;
        }
        for (std::size_t lv = levels; lv-- > d;) {
          const std::uint64_t u = unit[lv][pe];
          if (down_mark[lv][u] == epoch) break;
          down_mark[lv][u] = epoch;
          plan.levels[lv].down_delivered_bytes += bytes;
          const std::uint64_t p = parent_of(pe, lv);
          if (parent_mark[lv][p] == epoch) continue;
          parent_mark[lv][p] = epoch;
          plan.levels[lv].down_sent_bytes += bytes;
          down_port[lv][p] += bytes;
        }
      }
  }
  for (std::size_t lv = 0; lv < levels; ++lv) {
    plan.levels[lv].busiest_down_port_bytes = *std::max_element(down_port[lv].begin(), down_port[lv].end());
    plan.levels[lv].busiest_up_port_bytes = *std::max_element(up_port[lv].begin(), up_port[lv].end());
  }
  return plan;
}

}  // namespace treesim::program
