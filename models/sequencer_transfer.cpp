// Loads, stores and tree collectives: DRAM through the TLM socket, then the ports of every level
// the transfer reaches (each TreeLevel holds its own), each stage cut-through: the transfer ends
// the path's latencies after its slowest stage (the cost model's closed form when it runs alone).
#include <algorithm>

#include <fmt/format.h>

#include "models/clock.h"
#include "models/dram.h"
#include "models/sequencer.h"
#include "sim/program/row_gather.h"

namespace treesim::models {
namespace {

using timing::Direction;
using timing::Resource;

// A transfer's traffic in its own direction, from its loader plan.
void add_traffic(const layout::TrafficPlan& plan, bool down, std::vector<timing::LinkWork>& traffic) {
  for (std::size_t l = 0; l < traffic.size(); ++l) {
    const layout::LevelTraffic& lt = plan.levels[l];
    timing::LinkWork& t = traffic[l];
    if (down) {
      t.down_sent_bytes = lt.down_sent_bytes;
      t.down_delivered_bytes = lt.down_delivered_bytes;
      t.busiest_down_port_bytes = lt.busiest_down_port_bytes;
    } else {
      t.up_sent_bytes = lt.up_sent_bytes;
      t.up_delivered_bytes = lt.up_delivered_bytes;
      t.busiest_up_port_bytes = lt.busiest_up_port_bytes;
    }
  }
}

}  // namespace

std::uint64_t Sequencer::dram_block(std::size_t index, const program::Transfer& t, bool write,
                                    std::uint8_t* staging, std::uint64_t ready, std::uint64_t& dram_start) {
  const program::TensorDecl& tensor = program_->tensors[t.tensor];
  const std::uint64_t eb = core::dtype_bytes(tensor.dtype);
  const program::Block& block = t.block;
  const std::uint64_t elements = block.elements();
  dram_start = ready;
  if (elements == 0) return ready;
  // One access per contiguous run of the block's rows inside one channel, all in one burst; with
  // no staging (timing only, or the bytes moved through DMI) the accesses move nothing (TLM's
  // ignore command) and are there for their time: a target that times addresses (the banked
  // model) sees the rows the block really has either way.
  BurstExtension burst;
  burst.id = (run_id_ << 32) | index;
  burst.write = write;
  tlm::tlm_generic_payload trans;
  trans.set_extension(&burst);
  std::uint64_t done = ready, started = UINT64_MAX;
  bool failed_access = false;
  // One run of `count` elements from tensor element `start`, its bytes at `data` (or none).
  auto access = [&](std::uint64_t start, std::uint64_t count, std::uint8_t* data) {
    for (std::uint64_t off = 0; off < count * eb && !failed_access;) {
      const DramMap::Span span = dram_map_->at(t.tensor, start * eb + off, count * eb - off);
      trans.set_command(!staging ? tlm::TLM_IGNORE_COMMAND
                        : write  ? tlm::TLM_WRITE_COMMAND
                                 : tlm::TLM_READ_COMMAND);
      trans.set_address(span.address);
      trans.set_data_ptr(data ? data + off : nullptr);
      trans.set_data_length(static_cast<unsigned int>(span.bytes));
      trans.set_streaming_width(static_cast<unsigned int>(span.bytes));
      trans.set_byte_enable_ptr(nullptr);
      trans.set_dmi_allowed(false);
      trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      burst.started = false;
      // The access arrives when its data is ready, or now if SystemC time is already past that (a
      // target that waited): the DRAM port serves in order, so that cannot be later than it starts.
      const sc_core::sc_time before = sc_core::sc_time_stamp();
      sc_core::sc_time delay = cycles_to_time(std::max(ready, time_to_cycles(before))) - before;
      dram[span.channel]->b_transport(trans, delay);
      if (sc_core::sc_time_stamp() > before) {  // the target synchronised: follow it
        keeper_.reset();
        ++syncs_;
      }
      if (trans.is_response_error()) {
        fail(index, fmt::format("DRAM {} of {} bytes at address {} (channel {}) failed: {}",
                                write ? "write" : "read", span.bytes, span.address, span.channel,
                                trans.get_response_string()));
        failed_access = true;
        return;
      }
      if (burst.started) started = std::min(started, burst.start_cycle);
      done = std::max(done, time_to_cycles(sc_core::sc_time_stamp() + delay));
      off += span.bytes;
    }
  };
  if (t.dram_runs) {
    // A windowed load reads each element its windows touch once, a row gather or scatter each of
    // its distinct rows; staging holds them from the first run's element on.
    for (const program::ElementRun& run : t.dram_runs->runs) {
      access(run.first, run.count, staging ? staging + (run.first - t.dram_runs->first()) * eb : nullptr);
      if (failed_access) break;
    }
  } else {
    const std::uint64_t row = block.whole || block.shape.empty() ? elements : block.shape.back();
    for (std::uint64_t first = 0; first < elements && !failed_access;) {
      std::uint64_t count = row;
      const std::uint64_t start = block.full_index(first);
      while (first + count < elements && block.full_index(first + count) == start + count) count += row;
      access(start, count, staging ? staging + first * eb : nullptr);
      first += count;
    }
  }
  trans.clear_extension(&burst);
  if (failed_access) return ready;
  if (started != UINT64_MAX) dram_start = started;
  const std::uint64_t latency = write ? dram_write_latency_ : dram_read_latency_;
  const std::uint64_t released = done - std::min(done, latency);
  advance_horizon(released);
  return released;
}

std::uint8_t* Sequencer::dmi_tensor(const program::Transfer& t, bool write) const {
  const std::uint64_t bytes = program_->tensors[t.tensor].bytes();
  if (!dram_map_->whole(t.tensor)) return nullptr;  // in pieces over the channels
  const std::uint64_t channel = dram_map_->at(t.tensor, 0, 1).channel, base = dram_map_->base(t.tensor);
  const tlm::tlm_dmi& dmi = dmi_[channel];
  if (!dmi_valid_[channel] || !(write ? dmi.is_write_allowed() : dmi.is_read_allowed())) return nullptr;
  if (base < dmi.get_start_address() || base + bytes - 1 > dmi.get_end_address()) return nullptr;
  return dmi.get_dmi_ptr() + (base - dmi.get_start_address());
}

void Sequencer::transfer(std::size_t i, const program::Transfer& t, bool down, std::uint64_t ready,
                         InstrRecord& r, std::uint8_t* staging) {
  const Direction d = down ? Direction::kDown : Direction::kUp;
  const std::uint64_t dram_bytes = down ? t.plan.dram_read_bytes : t.plan.dram_write_bytes;
  std::uint64_t start = UINT64_MAX, dram_start = ready;
  std::uint64_t last = std::max(ready, dram_block(i, t, !down, staging, ready, dram_start));
  if (dram_bytes > 0) {
    r.busy.push_back({Resource::dram(), cost_.dram(dram_bytes).busy});
    start = dram_start;
  }
  add_traffic(t.plan, down, r.work.levels);
  std::uint64_t latency = down ? dram_read_latency_ : dram_write_latency_;
  for (std::size_t l = 0; l < machine_.levels.size(); ++l) {
    if (l == 0 && dram.size() > 1) {  // the channels feed the first level's units directly
      latency += cross_stage(t, down, ready, r, start, last);
      continue;
    }
    const StageTime s = levels[l]->stage(d, t.ports[l], ready);
    if (s.busy > 0) {
      r.busy.push_back({Resource::port(l, d), s.busy});
      start = std::min(start, s.start);
    }
    last = std::max(last, s.end);
    latency += levels[l]->latency_cycles();
  }
  r.timing = {start == UINT64_MAX ? ready : start, last + latency};
  (down ? r.work.dram_read_bytes : r.work.dram_write_bytes) = dram_bytes;
  r.work.lm_bytes = down ? t.plan.levels.back().down_delivered_bytes : t.plan.levels.back().up_sent_bytes;
}

void Sequencer::load(std::size_t i, const program::Load& op, std::uint64_t ready, InstrRecord& r) {
  const program::Transfer& t = *checked_->instrs[i].transfer;
  // The bytes: straight from DRAM's memory when the target offers DMI for them, else read into a
  // staging block through b_transport; the time always comes from b_transport.
  std::uint8_t* dmi = options_.functional ? dmi_tensor(t, false) : nullptr;
  const bool staged = options_.functional && !dmi;
  if (t.window) {
    // The windows' elements come from DRAM (or its memory), and the block is made from them (the
    // loader's im2col); the layout then places the block as any other.
    const program::WindowRead& w = *t.window;
    const std::size_t eb = t.bound.element_bytes();
    if (staged) grow(window_source_, t.dram_runs->span() * eb);
    transfer(i, t, true, ready, r, staged ? window_source_.data() : nullptr);
    if (failed()) return;
    if (w.halo_patch_bytes) {
      // Each PE's copy unit makes its slots from its patch once the patch has landed.
      const StepTime s = pes->step(timing::Unit::kCopy, t.footprint_bytes, r.timing.end);
      if (s.busy > 0) r.busy.push_back({Resource::unit(timing::Unit::kCopy), s.busy});
      r.work[timing::Datapath::kCopy] = t.footprint_bytes * t.bound.pes_used();
      r.timing.end = std::max(r.timing.end, s.end);
    }
    if (!options_.functional) return;
    grow(staging_, t.block.elements() * eb);
    if (dmi)
      program::expand_window(w.window, w.tensor_shape, t.block.offset, t.block.shape, dmi, 0, eb, op.pad,
                             staging_.data());
    else
      program::expand_window(w.window, w.tensor_shape, t.block.offset, t.block.shape, window_source_.data(),
                             t.dram_runs->first(), eb, op.pad, staging_.data());
    pes->scatter(t, staging_.data(), op.lm, op.pad, nullptr);
    return;
  }
  if (t.rows) {
    // The distinct rows come from DRAM (or its memory); the block is made from them and placed by
    // the layout as any other.
    const program::RowRead& rr = *t.rows;
    const std::size_t eb = t.bound.element_bytes();
    if (staged) grow(window_source_, t.dram_runs->span() * eb);
    transfer(i, t, true, ready, r, staged ? window_source_.data() : nullptr);
    if (failed() || !options_.functional) return;
    grow(staging_, t.block.elements() * eb);
    program::gather_rows(op.rows, rr.row_elements, t.block.offset, t.block.shape,
                         dmi ? dmi : window_source_.data(), dmi ? 0 : t.dram_runs->first(), eb, op.pad,
                         staging_.data());
    if (!op.rows.has_gaps()) {
      pes->scatter(t, staging_.data(), op.lm, op.pad, nullptr);
      return;
    }
    const std::vector<std::pair<std::uint64_t, std::uint64_t>> gaps =
        program::gap_elements(op.rows, t.block.offset, t.block.shape);
    pes->scatter(t, staging_.data(), op.lm, op.pad, nullptr, &gaps);
    return;
  }
  if (staged) grow(staging_, t.block.elements() * t.bound.element_bytes());
  transfer(i, t, true, ready, r, staged ? staging_.data() : nullptr);
  if (failed()) return;
  if (dmi)
    pes->scatter(t, dmi, op.lm, op.pad, &t.block);
  else if (staged)
    pes->scatter(t, staging_.data(), op.lm, op.pad, nullptr);
}

void Sequencer::store(std::size_t i, const program::Store& op, std::uint64_t ready, InstrRecord& r) {
  const program::Transfer& t = *checked_->instrs[i].transfer;
  std::uint8_t* dmi = options_.functional ? dmi_tensor(t, true) : nullptr;
  const bool staged = options_.functional && !dmi;
  if (t.rows) {
    // The block is gathered from the LMs, and each non-padding row goes to its tensor row: straight
    // into DRAM's memory, or staged as the distinct rows' runs for the write.
    const program::RowRead& rr = *t.rows;
    const std::size_t eb = t.bound.element_bytes();
    if (options_.functional) {
      grow(staging_, t.block.elements() * eb);
      pes->gather(t, op.lm, staging_.data(), nullptr);
      if (staged) window_source_.assign(t.dram_runs->span() * eb, 0);
      program::scatter_rows(op.rows, rr.row_elements, t.block.offset, t.block.shape, staging_.data(),
                            dmi ? 0 : t.dram_runs->first(), eb, dmi ? dmi : window_source_.data());
    }
    transfer(i, t, false, ready, r, staged ? window_source_.data() : nullptr);
    return;
  }
  if (dmi) {
    pes->gather(t, op.lm, dmi, &t.block);
  } else if (staged) {
    grow(staging_, t.block.elements() * t.bound.element_bytes());
    pes->gather(t, op.lm, staging_.data(), nullptr);
  }
  transfer(i, t, false, ready, r, staged ? staging_.data() : nullptr);
}

void Sequencer::collective(std::size_t i, std::uint64_t ready, InstrRecord& r) {
  const program::Instr& instr = program_->instrs[i];
  timing::Collective kind = timing::Collective::kReduce;
  int li = 0;
  std::uint64_t bytes = 0;
  std::visit(
      [&](const auto& op) {
        using Op = std::decay_t<decltype(op)>;
        if constexpr (program::kCollective<Op>) {
          li = op.level.index;
          if constexpr (std::is_same_v<Op, program::Reduce>) {
            bytes = op.count * 4;
          } else {
            bytes = op.bytes;
            kind = std::is_same_v<Op, program::Broadcast> ? timing::Collective::kBroadcast
                   : std::is_same_v<Op, program::Scatter> ? timing::Collective::kScatter
                                                          : timing::Collective::kGather;
          }
        }
      },
      instr);
  const auto traffic = cost_.collective_traffic(kind, li, bytes);
  // Between a subtree's unit and its first PE (a reduce's or a gather's result down, a broadcast's
  // or a scatter's source up) only the ports on that path carry anything; the other direction uses
  // every port of the level alike (the subtrees work alike).
  const Direction first_path = kind == timing::Collective::kReduce || kind == timing::Collective::kGather
                                   ? Direction::kDown
                                   : Direction::kUp;
  const std::uint64_t subtrees = li < 0 ? 1 : machine_.units_at(static_cast<std::size_t>(li));
  std::vector<layout::PortBytes> path;
  std::uint64_t start = UINT64_MAX, last = ready, latency = 0;
  for (std::size_t l = static_cast<std::size_t>(li + 1); l < machine_.levels.size(); ++l) {
    const timing::CollectiveLevelTraffic& t = traffic[l];
    r.work.levels[l] = {t.down_sent,    t.down_delivered, t.up_sent,
                        t.up_delivered, t.down_busiest,   t.up_busiest};
    // A subtree's first descendant of level l − 1 (the parent of the path's port at level l).
    const std::uint64_t per_subtree = l == 0 ? 1 : machine_.units_at(l - 1) / subtrees;
    for (Direction d : {Direction::kUp, Direction::kDown}) {
      const std::uint64_t port_bytes = d == Direction::kUp ? t.up_busiest : t.down_busiest;
      path.clear();
      if (d == first_path)
        for (std::uint64_t u = 0; u < subtrees; ++u) path.push_back({u * per_subtree, port_bytes});
      const StageTime s =
          d == first_path ? levels[l]->stage(d, path, ready) : levels[l]->stage_all(d, port_bytes, ready);
      if (s.busy > 0) {
        r.busy.push_back({Resource::port(l, d), s.busy});
        start = std::min(start, s.start);
      }
      last = std::max(last, s.end);
      latency += levels[l]->latency_cycles();
    }
  }
  r.timing = {start == UINT64_MAX ? ready : start, last + latency};
  const std::uint64_t pe_count = machine_.pe_count();
  const std::uint64_t subtree =
      li < 0 ? pe_count : pe_count / machine_.units_at(static_cast<std::size_t>(li));
  if (options_.functional) pes->collective(instr, subtree);
}

}  // namespace treesim::models
