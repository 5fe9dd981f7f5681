// Closed forms of port_traffic.h from the layout's digits: a unit's coordinate at a level is
// Σ digit × stride over the parts that target that level, so the parents that hold anything are a
// product of per-level coordinate sets (load), and the elements below a parent are counted per
// axis from the digits it fixes (gather), as loader_plan.cpp's axis counts do.
#include "sim/layout/port_traffic.h"

#include <algorithm>

#include "sim/layout/loader_plan.h"

namespace treesim::layout {
namespace {

// Odometer over `sizes`: calls f(digits) for every combination (one call when sizes is empty).
template <typename F>
void for_each_combo(const std::vector<std::uint64_t>& sizes, F&& f) {
  std::vector<std::uint64_t> d(sizes.size(), 0);
  for (;;) {
    f(d);
    std::size_t k = sizes.size();
    while (k > 0) {
      --k;
      if (++d[k] < sizes[k]) break;
      d[k] = 0;
      if (k == 0) return;
    }
    if (sizes.empty()) return;
  }
}

// Coordinates a level's units can take under one parent: every unit of an omitted level, else
// Σ digit × stride over every combination of the parts that target it (broadcast parts included).
std::vector<std::uint64_t> level_coordinates(const BoundLayout& b, std::size_t level) {
  std::vector<std::uint64_t> out;
  if (b.level_is_omitted(level)) {
    for (std::uint64_t u = 0; u < b.fanout(level); ++u) out.push_back(u);
    return out;
  }
  const auto& ps = b.target_parts(static_cast<int>(level));
  std::vector<std::uint64_t> sizes;
  for (std::size_t i : ps) sizes.push_back(b.parts()[i].size);
  for_each_combo(sizes, [&](const std::vector<std::uint64_t>& d) {
    std::uint64_t c = 0;
    for (std::size_t k = 0; k < ps.size(); ++k) c += d[k] * b.parts()[ps[k]].stride;
    out.push_back(c);
  });
  return out;
}

// The parts of each axis, outermost first.
std::vector<std::vector<std::size_t>> axis_parts(const BoundLayout& b) {
  std::vector<std::vector<std::size_t>> out(b.rank());
  for (std::size_t i = 0; i < b.distribution_part_count(); ++i)
    if (b.parts()[i].axis >= 0) out[static_cast<std::size_t>(b.parts()[i].axis)].push_back(i);
  return out;
}

constexpr std::uint64_t kFree = UINT64_MAX;  // a part whose digit is not fixed

// Logical coordinates x < shape[axis] whose digits at the fixed parts equal `fixed` (by part index,
// kFree where not fixed); the digit DP of loader_plan.cpp for one assignment.
// `free_after` is scratch.
std::uint64_t count_axis(const BoundLayout& b, std::size_t axis, const std::vector<std::size_t>& parts,
                         const std::vector<std::uint64_t>& fixed, std::vector<std::uint64_t>& free_after) {
  const std::uint64_t n = b.shape()[axis];
  free_after.resize(parts.size() + 1);
  free_after[parts.size()] = 1;
  for (std::size_t k = parts.size(); k-- > 0;)
    free_after[k] = free_after[k + 1] * (fixed[parts[k]] != kFree ? 1 : b.parts()[parts[k]].size);
  if (n == b.padded_shape()[axis]) return free_after[0];
  std::uint64_t count = 0;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const auto& p = b.parts()[parts[k]];
    const std::uint64_t nd = (n / p.weight) % p.size, f = fixed[parts[k]];
    const std::uint64_t below = f != kFree ? (f < nd ? 1 : 0) : nd;
    count += below * free_after[k + 1];
    if (f != kFree && f != nd) break;
  }
  return count;
}

}  // namespace

PortTraffic load_port_traffic(const BoundLayout& b) {
  const TrafficPlan plan = plan_load(b);
  PortTraffic out(b.level_count());
  std::vector<std::vector<std::uint64_t>> coords;  // per level above the current one
  for (std::size_t x = 0; x < b.level_count(); ++x) {
    const std::uint64_t bytes = plan.levels[x].busiest_down_port_bytes;
    if (bytes > 0) {
      std::vector<std::uint64_t> sizes;
      for (const auto& c : coords) sizes.push_back(c.size());
      for_each_combo(sizes, [&](const std::vector<std::uint64_t>& d) {
        std::uint64_t parent = 0;
        for (std::size_t lv = 0; lv < coords.size(); ++lv) parent = parent * b.fanout(lv) + coords[lv][d[lv]];
        out[x].push_back({parent, bytes});
      });
      std::sort(out[x].begin(), out[x].end(),
                [](const PortBytes& a, const PortBytes& c) { return a.parent < c.parent; });
    }
    coords.push_back(level_coordinates(b, x));
  }
  return out;
}

PortTraffic gather_port_traffic(const BoundLayout& b) {
  PortTraffic out(b.level_count());
  const std::uint64_t eb = b.element_bytes();
  if (b.logical_elements() == 0) return out;
  out[0].push_back({0, b.logical_elements() * eb});
  const std::vector<std::vector<std::size_t>> by_axis = axis_parts(b);
  std::vector<std::uint64_t> fixed(b.distribution_part_count(), kFree), scratch;
  // Distribution parts that target levels above x, gathered level by level.
  std::vector<std::size_t> parts;
  for (std::size_t x = 1; x < b.level_count(); ++x) {
    for (std::size_t i : b.target_parts(static_cast<int>(x - 1)))
      if (b.parts()[i].axis >= 0) parts.push_back(i);
    std::vector<std::uint64_t> sizes;
    for (std::size_t i : parts) sizes.push_back(b.parts()[i].size);
    std::vector<PortBytes>& ports = out[x];
    for_each_combo(sizes, [&](const std::vector<std::uint64_t>& d) {
      for (std::size_t k = 0; k < parts.size(); ++k) fixed[parts[k]] = d[k];
      std::uint64_t count = 1;
      for (std::size_t axis = 0; axis < b.rank() && count > 0; ++axis)
        count *= count_axis(b, axis, by_axis[axis], fixed, scratch);
      if (count == 0) return;
      // Replica 0: broadcast digits and omitted levels at 0.
      std::uint64_t parent = 0;
      for (std::size_t lv = 0; lv < x; ++lv) {
        std::uint64_t c = 0;
        for (std::size_t i : b.target_parts(static_cast<int>(lv)))
          if (b.parts()[i].axis >= 0) c += fixed[i] * b.parts()[i].stride;
        parent = parent * b.fanout(lv) + c;
      }
      ports.push_back({parent, count * eb});
    });
    for (std::size_t i : parts) fixed[i] = kFree;
    // Several digit combinations may reach one parent: sorted, then merged.
    std::sort(ports.begin(), ports.end(),
              [](const PortBytes& p, const PortBytes& q) { return p.parent < q.parent; });
    std::size_t kept = 0;
    for (std::size_t i = 0; i < ports.size(); ++i) {
      if (kept > 0 && ports[kept - 1].parent == ports[i].parent)
        ports[kept - 1].bytes += ports[i].bytes;
      else
        ports[kept++] = ports[i];
    }
    ports.resize(kept);
  }
  return out;
}

}  // namespace treesim::layout
