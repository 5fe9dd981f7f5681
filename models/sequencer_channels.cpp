// Transfers on a machine with a DRAM channel per unit of the first level (MN-Core 2's Groups):
// a channel feeds its own unit's subtree, so the first level's links (the board's ports to those
// units) carry only the bytes that cross from one unit's channel to another unit's subtree. That
// is decided element by element: the channel that holds it (DramMap) against the units of the
// first level it goes to (a load: every replica's) or comes from (a store: replica 0's). A crossing
// element goes up the board's up port once and down its down port once (a broadcast to several
// units is one send). Padding is made where it is needed and never crosses.
#include <algorithm>
#include <vector>

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
  // The first level's coordinates an element's replicas take besides its own: its broadcast parts'.
  std::vector<std::uint64_t> offsets{0};
  if (down && !b.level_is_omitted(0)) {
    for (std::size_t i = b.distribution_part_count(); i < b.parts().size(); ++i) {
      const layout::BoundLayout::Part& p = b.parts()[i];
      if (p.target != 0) continue;
      std::vector<std::uint64_t> next;
      for (std::uint64_t o : offsets)
        for (std::uint64_t d = 0; d < p.size; ++d) next.push_back(o + d * p.stride);
      offsets.swap(next);
    }
  }
  Crossing c;
  const program::Block& block = t.block;
  const std::uint64_t elements = block.elements();
  std::vector<std::uint64_t> index(b.rank(), 0), values(b.target_count(), 0);
  std::vector<bool> reached(units);
  for (std::uint64_t i = 0; i < elements; ++i) {
    const std::uint64_t holder = map.at(t.tensor, block.full_index(i) * element_bytes, element_bytes).channel;
    std::uint64_t others = 0;
    if (down && b.level_is_omitted(0)) {
      others = units - 1;  // a copy in every unit
    } else {
      b.target_values(index.data(), values.data());
      if (!down) {
        others = values[0] != holder;  // replica 0 goes home
      } else {
        std::fill(reached.begin(), reached.end(), false);
        for (std::uint64_t o : offsets) {
          const std::uint64_t u = values[0] + o;
          if (u < units && u != holder && !reached[u]) {
            reached[u] = true;
            ++others;
          }
        }
      }
    }
    if (others) {
      c.bytes += element_bytes;
      c.delivered += others * element_bytes;
    }
    // The next index, row-major over the block's shape.
    for (std::size_t d = index.size(); d-- > 0;) {
      if (++index[d] < b.shape()[d]) break;
      index[d] = 0;
    }
  }
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
