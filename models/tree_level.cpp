#include "models/tree_level.h"

#include <algorithm>

namespace treesim::models {

using timing::Direction;

TreeLevel::TreeLevel(const sc_core::sc_module_name& name, const machine::MachineConfig& machine,
                     std::size_t level)
    : sc_core::sc_module(name),
      link("link"),
      cost_(machine),
      level_(level),
      parents_(level == 0 ? 1 : machine.units_at(level - 1)),
      down_rate_(cost_.rate(timing::Resource::port(level, Direction::kDown)).first),
      up_rate_(cost_.rate(timing::Resource::port(level, Direction::kUp)).first),
      latency_(cost_.rate(timing::Resource::port(level, Direction::kDown)).second),
      reduce_(machine.levels.at(level).reduce),
      down_(parents_),
      up_(parents_) {
  link.bind(*this);
}

StageTime TreeLevel::stage(Direction d, const std::vector<layout::PortBytes>& ports, std::uint64_t ready) {
  Lanes& lanes = this->lanes(d);
  std::uint64_t at = ready, longest = 0, used = 0, first_bytes = 0;
  bool equal = true;
  for (const layout::PortBytes& p : ports) {
    const std::uint64_t cycles = cost_.port(level_, d, p.bytes).busy;
    if (cycles == 0) continue;
    at = std::max(at, lanes.next_free(p.parent));
    longest = std::max(longest, cycles);
    if (used++ == 0) first_bytes = p.bytes;
    equal = equal && p.bytes == first_bytes;
  }
  if (longest == 0) return {ready, ready, 0};
  if (used == parents_ && equal) {
    // Every port alike: the lock-step fast path.
    lanes.hold_all(at, longest, first_bytes);
  } else {
    for (const layout::PortBytes& p : ports) {
      const std::uint64_t cycles = cost_.port(level_, d, p.bytes).busy;
      if (cycles > 0) lanes.hold_one(p.parent, at, cycles, p.bytes);
    }
  }
  return {at, at + longest, longest};
}

StageTime TreeLevel::stage_all(Direction d, std::uint64_t bytes, std::uint64_t ready) {
  const std::uint64_t cycles = cost_.port(level_, d, bytes).busy;
  if (cycles == 0) return {ready, ready, 0};
  Lanes& lanes = this->lanes(d);
  const std::uint64_t at = std::max(ready, lanes.latest_free());
  lanes.hold_all(at, cycles, bytes);
  return {at, at + cycles, cycles};
}

void TreeLevel::start_run(std::uint64_t origin, trace::TraceLog* log, topology::Unit first_parent) {
  const int trace_level = static_cast<int>(level_) - 1;
  down_.start_run(origin, log, first_parent, trace_level, timing::Resource::port(level_, Direction::kDown));
  up_.start_run(origin, log, first_parent, trace_level, timing::Resource::port(level_, Direction::kUp));
}

}  // namespace treesim::models
