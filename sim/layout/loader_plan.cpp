// Closed forms of loader_plan.h. Per-target injectivity makes each unit of level X hold the slots of
// exactly one assignment of the distribution digits that target levels ≤ X (two assignments, or two
// replicas, differ in some level digit and so land in different units). Hence:
//   units with data at X   = Π_{Y≤X} (distribution sizes × broadcast sizes × fan-out if omitted)
//   |need(U)| at X          = padded slots / Π_{Y≤X} distribution sizes (the same for every unit)
// Only the gather, which excludes padding, needs per-assignment counts; they factorise per axis.
#include "sim/layout/loader_plan.h"

#include <algorithm>

namespace treesim::layout {
namespace {

struct LevelCounts {
  std::uint64_t dist = 1, bcast = 1, omitted = 1;
};

std::vector<LevelCounts> level_counts(const BoundLayout& b) {
  std::vector<LevelCounts> c(b.level_count());
  for (std::size_t lv = 0; lv < b.level_count(); ++lv) {
    if (b.level_is_omitted(lv)) c[lv].omitted = b.fanout(lv);
    for (std::size_t i : b.target_parts(static_cast<int>(lv))) {
      const auto& p = b.parts()[i];
      (p.axis >= 0 ? c[lv].dist : c[lv].bcast) *= p.size;
    }
  }
  return c;
}

// Counts, per axis, how many logical coordinates (x < N) carry each assignment of the digits of the
// parts that target levels ≤ `deepest`, and returns (max count, number of non-zero counts).
struct AxisCounts {
  std::uint64_t max = 0, nonzero = 0;
};

AxisCounts axis_counts(const BoundLayout& b, std::size_t axis, std::size_t deepest) {
  std::vector<const BoundLayout::Part*> parts;
  for (std::size_t i = 0; i < b.distribution_part_count(); ++i)
    if (b.parts()[i].axis == static_cast<int>(axis)) parts.push_back(&b.parts()[i]);
  const std::uint64_t n_logical = b.shape()[axis];
  const std::size_t k_count = parts.size();
  std::vector<bool> fixed(k_count);
  std::uint64_t combos = 1, free_product = 1;
  for (std::size_t k = 0; k < k_count; ++k) {
    fixed[k] = parts[k]->target < static_cast<int>(b.level_count()) &&
               static_cast<std::size_t>(parts[k]->target) <= deepest;
    (fixed[k] ? combos : free_product) *= parts[k]->size;
  }
  AxisCounts out;
  if (n_logical == b.padded_shape()[axis]) return {free_product, combos};  // no padding on this axis
  // N's digits in this axis's mixed radix (N < padded extent).
  std::vector<std::uint64_t> nd(k_count), free_after(k_count + 1, 1);
  for (std::size_t k = 0; k < k_count; ++k) nd[k] = (n_logical / parts[k]->weight) % parts[k]->size;
  for (std::size_t k = k_count; k-- > 0;) free_after[k] = free_after[k + 1] * (fixed[k] ? 1 : parts[k]->size);
  std::vector<std::uint64_t> f(k_count, 0);  // the assignment; only fixed positions vary
  for (std::uint64_t c = 0; c < combos; ++c) {
    // Digit DP: x < N iff at the first position where x and N differ, x's digit is smaller.
    std::uint64_t count = 0;
    for (std::size_t k = 0; k < k_count; ++k) {
      std::uint64_t below = fixed[k] ? (f[k] < nd[k] ? 1 : 0) : nd[k];
      count += below * free_after[k + 1];
      if (fixed[k] && f[k] != nd[k]) break;  // the prefix can no longer equal N's
    }
    out.max = std::max(out.max, count);
    if (count > 0) ++out.nonzero;
    for (std::size_t k = k_count; k-- > 0;) {  // next assignment (odometer over fixed positions)
      if (!fixed[k]) continue;
      if (++f[k] < parts[k]->size) break;
      f[k] = 0;
    }
  }
  return out;
}

}  // namespace

TrafficPlan plan_load(const BoundLayout& b) {
  require_resident(b);
  const std::uint64_t bytes = b.element_bytes(), padded = b.padded_elements();
  const auto counts = level_counts(b);
  TrafficPlan plan;
  plan.dram_read_bytes = b.logical_elements() * bytes;
  plan.levels.resize(b.level_count());
  std::uint64_t parents = 1, parent_need = padded;  // the board holds everything
  std::uint64_t assignments = 1;
  for (std::size_t lv = 0; lv < b.level_count(); ++lv) {
    const auto& c = counts[lv];
    assignments *= c.dist;
    const std::uint64_t units = parents * c.dist * c.bcast * c.omitted;
    const std::uint64_t need = padded / assignments;
    LevelTraffic& t = plan.levels[lv];
    t.down_sent_bytes = parents * parent_need * bytes;
    t.down_delivered_bytes = units * need * bytes;
    t.busiest_down_port_bytes = parent_need * bytes;
    plan.transfers += parents * c.dist;  // one send per distinct child payload under each parent
    parents = units;
    parent_need = need;
  }
  return plan;
}

TrafficPlan plan_gather(const BoundLayout& b) {
  require_resident(b);
  const std::uint64_t bytes = b.element_bytes(), logical = b.logical_elements();
  TrafficPlan plan;
  plan.dram_write_bytes = logical * bytes;
  plan.levels.resize(b.level_count());
  std::uint64_t parent_max = logical;  // the board receives everything
  for (std::size_t lv = 0; lv < b.level_count(); ++lv) {
    LevelTraffic& t = plan.levels[lv];
    t.up_sent_bytes = t.up_delivered_bytes = logical * bytes;
    t.busiest_up_port_bytes = parent_max * bytes;
    // Units of this level holding replica-0 elements, and the most any of them holds.
    std::uint64_t senders = 1, most = 1;
    for (std::size_t d = 0; d < b.rank(); ++d) {
      AxisCounts a = axis_counts(b, d, lv);
      senders *= a.nonzero;
      most *= a.max;
    }
    if (logical == 0) senders = 0;
    plan.transfers += senders;
    parent_max = most;
  }
  return plan;
}

TrafficPlan plan_load(const TensorLayout& layout, const std::vector<std::uint64_t>& shape,
                      std::size_t element_bytes, const machine::MachineConfig& machine) {
  return plan_load(bind_or_throw(layout, shape, machine, element_bytes));
}

TrafficPlan plan_gather(const TensorLayout& layout, const std::vector<std::uint64_t>& shape,
                        std::size_t element_bytes, const machine::MachineConfig& machine) {
  return plan_gather(bind_or_throw(layout, shape, machine, element_bytes));
}

}  // namespace treesim::layout
