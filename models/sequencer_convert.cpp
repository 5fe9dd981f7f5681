// A convert: a tensor moved from one layout in the LMs to another over the tree (no DRAM). Its
// traffic is layout::plan_conversion's: up from the sources to the lowest common level and down to
// the destinations, each level's ports held for its busiest port's bytes, the levels it crosses
// adding their latency each way; the copies inside one PE run on the copy unit beside the links.
// Alone it takes timing::CostModel::conversion's cycles, which is what `tune chain` prices. A windowed
// convert (a convolution reading the one before's output in the LMs) moves what window_convert.h
// counts, the same way.
#include <algorithm>

#include "models/sequencer.h"
#include "sim/program/window.h"

namespace treesim::models {

void Sequencer::convert(std::size_t i, const program::Convert& op, std::uint64_t ready, InstrRecord& r) {
  const program::Conversion& c = *checked_->instrs[i].conversion;
  const layout::ConversionPlan& plan = c.plan;
  std::uint64_t start = UINT64_MAX, last = ready, latency = 0;
  for (std::size_t l = 0; l < machine_.levels.size() && l < plan.levels.size(); ++l) {
    const layout::LevelTraffic& t = plan.levels[l];
    r.work.levels[l] = t;
    for (timing::Direction d : {timing::Direction::kUp, timing::Direction::kDown}) {
      const std::uint64_t bytes =
          d == timing::Direction::kUp ? t.busiest_up_port_bytes : t.busiest_down_port_bytes;
      if (bytes == 0) continue;
      const StageTime s = levels[l]->stage_all(d, bytes, ready);
      r.busy.push_back({timing::Resource::port(l, d), s.busy});
      start = std::min(start, s.start);
      last = std::max(last, s.end);
      latency += levels[l]->latency_cycles();
    }
  }
  std::uint64_t end = start == UINT64_MAX ? ready : last + latency;
  const std::uint64_t eb = c.to.bound.element_bytes();
  const std::uint64_t in_pe = plan.copies_by_lca.empty() ? 0 : plan.copies_by_lca.back();
  if (in_pe > 0) {
    // Spread evenly over the PEs, as the cost model counts them.
    const StepTime step =
        pes->step(timing::Unit::kCopy, timing::ceil_div(in_pe * eb, machine_.pe_count()), ready);
    r.busy.push_back({timing::Resource::unit(timing::Unit::kCopy), step.busy});
    r.work[timing::Datapath::kCopy] = in_pe * eb;
    start = std::min(start, step.start);
    end = std::max(end, step.end);
  }
  r.timing = {start == UINT64_MAX ? ready : start, end};
  if (!options_.functional) return;
  // Through a host block: every element from the source's replica 0, then every slot of `to` (with a
  // window, the block of its matrix made from them first).
  grow(staging_, c.from.block.elements() * eb);
  pes->gather(c.from, op.src, staging_.data(), nullptr);
  if (c.to.window) {
    if (lm_reads_.count(op.tensor) == 0)
      lm_reads_[op.tensor].assign(staging_.begin(),
                                  staging_.begin() + static_cast<std::ptrdiff_t>(c.from.block.elements() * eb));
    const program::WindowRead& w = *c.to.window;
    grow(window_source_, c.to.block.elements() * eb);
    program::expand_window(w.window, w.tensor_shape, c.to.block.offset, c.to.block.shape, staging_.data(), 0,
                           eb, op.pad, window_source_.data());
    pes->scatter(c.to, window_source_.data(), op.dst, op.pad, nullptr);
    return;
  }
  pes->scatter(c.to, staging_.data(), op.dst, op.pad, nullptr);
}

}  // namespace treesim::models
