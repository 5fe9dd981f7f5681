// Transfers on a machine with a DRAM channel per unit of the first level (MN-Core 2's Groups):
// a channel feeds its own unit's subtree, so the first level's links (the board's ports to those
// units) carry only the bytes that cross from one unit's channel to another unit's subtree. That
// is decided run by run of elements that share a holder and a unit: the channel that holds them
// (DramMap) against the units of the first level they go to (a load: every replica's) or come from
// (a store: replica 0's). A crossing element goes up the board's up port once and down its down
// port once (a broadcast to several units is one send). Padding is made where it is needed and
// never crosses.
#include <algorithm>
#include <vector>

#include "models/block_runs.h"
#include "models/sequencer.h"

namespace treesim::models {
namespace {

struct Crossing {
  std::uint64_t bytes = 0;      // sent up to the board, and down from it, once each
  std::uint64_t delivered = 0;  // received by first-level units other than the holder
};

Crossing crossing(const program::Transfer& t, const DramMap& map, std::uint64_t element_bytes, bool down) {
  const layout::BoundLayout& b = t.bound;
  const std::uint64_t units = b.fanout(0);
  Crossing c;
  if (down && b.level_is_omitted(0)) {  // a copy in every unit: all but the holder's cross
    c.bytes = t.block.elements() * element_bytes;
    c.delivered = (units - 1) * c.bytes;
    return c;
  }
  // The first level's coordinates an element's replicas take besides its own: its broadcast parts'.
  std::vector<std::uint64_t> offsets{0};
  if (down) {
    for (std::size_t i = b.distribution_part_count(); i < b.parts().size(); ++i) {
      const layout::BoundLayout::Part& p = b.parts()[i];
      if (p.target != 0) continue;
      std::vector<std::uint64_t> next;
      for (std::uint64_t o : offsets)
        for (std::uint64_t d = 0; d < p.size; ++d) next.push_back(o + d * p.stride);
      offsets.swap(next);
    }
  }
  // The units other than `holder` that an element whose replica 0 is in `unit` reaches.
  std::vector<bool> reached(units);
  auto others = [&](std::uint64_t unit, std::uint64_t holder) -> std::uint64_t {
    if (!down) return unit != holder;  // replica 0 goes home
    std::fill(reached.begin(), reached.end(), false);
    std::uint64_t n = 0;
    for (std::uint64_t o : offsets) {
      const std::uint64_t u = unit + o;
      if (u < units && u != holder && !reached[u]) {
        reached[u] = true;
        ++n;
      }
    }
    return n;
  };
  for_each_value_run(t, 0, [&](std::uint64_t first, std::uint64_t count, std::uint64_t unit) {
    const std::uint64_t from = first * element_bytes, bytes = count * element_bytes;
    for (std::uint64_t off = 0; off < bytes;) {
      const DramMap::Span s = map.at(t.tensor, from + off, bytes - off);
      if (const std::uint64_t n = others(unit, s.channel)) {
        c.bytes += s.bytes;
        c.delivered += n * s.bytes;
      }
      off += s.bytes;
    }
  });
  return c;
}

}  // namespace

std::uint64_t Sequencer::cross_stage(const program::Transfer& t, bool down, std::uint64_t ready,
                                     InstrRecord& r, std::uint64_t& start, std::uint64_t& last) {
  const Crossing c = crossing(t, *dram_map_, core::dtype_bytes(program_->tensors[t.tensor].dtype), down);
  timing::LinkWork& w = r.work.levels[0];
  w = {};
  if (c.bytes == 0) return 0;
  // Up from the holders' units to the board, then down to the units that need them.
  w.up_sent_bytes = w.up_delivered_bytes = w.busiest_up_port_bytes = c.bytes;
  w.down_sent_bytes = w.busiest_down_port_bytes = c.bytes;
  w.down_delivered_bytes = c.delivered;
  const std::vector<layout::PortBytes> board{{0, c.bytes}};
  for (timing::Direction d : {timing::Direction::kUp, timing::Direction::kDown}) {
    const StageTime s = levels[0]->stage(d, board, ready);
    r.busy.push_back({timing::Resource::port(0, d), s.busy});
    start = std::min(start, s.start);
    last = std::max(last, s.end);
  }
  return 2 * levels[0]->latency_cycles();
}

}  // namespace treesim::models
