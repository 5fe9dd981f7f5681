#include "sim/program/window_convert.h"

#include <algorithm>
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
  std::uint64_t of(std::uint64_t e) const {
    std::uint64_t pe = 0;
    for (std::size_t d = shape_.size(); d-- > 0;) {
      pe += tables_[d][e % shape_[d]];
      e /= shape_[d];
    }
    return pe;
  }
  // What replica r's PE adds to replica 0's.
  const std::vector<std::uint64_t>& offsets() const { return offsets_; }

 private:
  std::vector<std::uint64_t> shape_, offsets_;
  std::vector<std::vector<std::uint64_t>> tables_;
};

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
  auto unit_at = [&](std::uint64_t pe, std::size_t lv) { return pe / to.pe_weight(lv); };
  // Levels the two PEs share, from the root (0: only the board).
  auto shared = [&](std::uint64_t a, std::uint64_t b) {
    std::size_t d = 0;
    while (d < levels && unit_at(a, d) == unit_at(b, d)) ++d;
    return d;
  };
  const Holders holders(from);
  // The copy of element e nearest to PE `pe` (the deepest shared unit; the lowest PE on ties) and
  // the levels they share.
  auto nearest = [&](std::uint64_t e, std::uint64_t pe) {
    const std::uint64_t h0 = holders.of(e);
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

  // Each PE's slots: their elements (repeats included), counted by the level they come through,
  // and its distinct elements.
  std::vector<std::vector<ElementRun>> needs(pe_count);
  std::vector<std::uint64_t> elements;
  std::vector<std::uint8_t> seen;
  std::uint64_t lo = UINT64_MAX, hi = 0;
  for_each_used_pe(to, [&](std::uint64_t pe, const layout::UnitView& v) {
    elements.clear();
    for (auto [r0, rn] : held_intervals(v.axes[0], to.shape()[0]))
      for (auto [c0, cn] : held_intervals(v.axes[1], to.shape()[1]))
        window_elements(w, tensor, {offset[0] + r0, offset[1] + c0}, {rn, cn}, elements);
    for (std::uint64_t e : elements) ++plan.copies_by_lca[nearest(e, pe).first];
    plan.destination_slots += elements.size();
    needs[pe] = distinct_runs(elements, seen);
    if (!needs[pe].empty()) {
      lo = std::min(lo, needs[pe].front().first);
      hi = std::max(hi, needs[pe].back().first + needs[pe].back().count);
    }
  });
  if (lo >= hi) return plan;

  // The PEs that read each element, in PE order (counted, then filled).
  std::vector<std::uint64_t> first(hi - lo + 1, 0);
  for (const auto& runs : needs)
    for (const ElementRun& r : runs)
      for (std::uint64_t e = r.first; e < r.first + r.count; ++e) ++first[e - lo + 1];
  for (std::size_t i = 1; i < first.size(); ++i) first[i] += first[i - 1];
  std::vector<std::uint32_t> readers(first.back());
  {
    std::vector<std::uint64_t> at(first.begin(), first.end() - 1);
    for (std::uint64_t pe = 0; pe < pe_count; ++pe)
      for (const ElementRun& r : needs[pe])
        for (std::uint64_t e = r.first; e < r.first + r.count; ++e)
          readers[at[e - lo]++] = static_cast<std::uint32_t>(pe);
  }
  needs.clear();
  needs.shrink_to_fit();

  // Per element: the links up from each reader's nearest copy and down to the reader, each once. A
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
  auto parent_of = [&](std::uint64_t pe, std::size_t lv) { return lv == 0 ? 0 : unit_at(pe, lv - 1); };
  std::uint64_t epoch = 0;
  for (std::uint64_t e = lo; e < hi; ++e) {
    if (first[e - lo] == first[e - lo + 1]) continue;
    ++epoch;
    for (std::uint64_t i = first[e - lo]; i < first[e - lo + 1]; ++i) {
      const std::uint64_t pe = readers[i];
      const auto [d, h] = nearest(e, pe);
      if (d == levels) continue;  // its own PE: the copy unit
      for (std::size_t lv = d; lv < levels; ++lv) {
        const std::uint64_t u = unit_at(h, lv);
        if (up_mark[lv][u] == epoch) break;
        up_mark[lv][u] = epoch;
        plan.levels[lv].up_sent_bytes += eb;
        plan.levels[lv].up_delivered_bytes += eb;
        up_port[lv][parent_of(h, lv)] += eb;
      }
      for (std::size_t lv = levels; lv-- > d;) {
        const std::uint64_t u = unit_at(pe, lv);
        if (down_mark[lv][u] == epoch) break;
        down_mark[lv][u] = epoch;
        plan.levels[lv].down_delivered_bytes += eb;
        const std::uint64_t p = parent_of(pe, lv);
        if (parent_mark[lv][p] == epoch) continue;
        parent_mark[lv][p] = epoch;
        plan.levels[lv].down_sent_bytes += eb;
        down_port[lv][p] += eb;
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
