// Loads, stores and tree collectives: DRAM through the TLM socket, then every link port the
// transfer reaches, each stage cut-through: the transfer ends the path's latencies after its
// slowest stage (the cost model's closed form when it runs alone).
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "models/board.h"
#include "models/clock.h"
#include "models/dram.h"
#include "models/layout_transfer.h"
#include "models/sequencer.h"

namespace treesim::models {
namespace {

using timing::Direction;

void add_traffic(const layout::TrafficPlan& plan, bool down, std::vector<report::LinkStats>& traffic) {
  for (std::size_t l = 0; l < traffic.size(); ++l) {
    const layout::LevelTraffic& lt = plan.levels[l];
    report::LinkStats& t = traffic[l];
    if (down) {
      t.down_sent_bytes = lt.down_sent_bytes;
      t.down_delivered_bytes = lt.down_delivered_bytes;
      t.down_busiest_port_bytes = lt.busiest_down_port_bytes;
    } else {
      t.up_sent_bytes = lt.up_sent_bytes;
      t.up_delivered_bytes = lt.up_delivered_bytes;
      t.up_busiest_port_bytes = lt.busiest_up_port_bytes;
    }
  }
}

// sum[c] += part[c] over int32 values stored as bytes, wrapping.
void add_int32(std::uint8_t* __restrict sum, const std::uint8_t* __restrict part, std::uint64_t count) {
  for (std::uint64_t c = 0; c < count; ++c) {
    std::uint32_t x, y;
    std::memcpy(&x, sum + 4 * c, 4);
    std::memcpy(&y, part + 4 * c, 4);
    x += y;
    std::memcpy(sum + 4 * c, &x, 4);
  }
}

// The functional work of a collective: every subtree of `subtree` PEs (those below one unit of the
// collective's level) works on its PEs' LMs, PE by PE in order.
template <typename Op>
void perform_collective(const Op& op, const std::vector<Pe*>& pes, std::uint64_t subtree) {
  std::vector<std::uint8_t> buffer;
  const std::uint64_t s = subtree;
  for (std::uint64_t first = 0; first < pes.size(); first += s) {
    if constexpr (std::is_same_v<Op, program::Broadcast>) {
      buffer.assign(pes[first]->lm() + op.src, pes[first]->lm() + op.src + op.bytes);
      for (std::uint64_t j = 0; j < s; ++j)
        std::memcpy(pes[first + j]->lm() + op.dst, buffer.data(), op.bytes);
    } else if constexpr (std::is_same_v<Op, program::Scatter>) {
      buffer.assign(pes[first]->lm() + op.src, pes[first]->lm() + op.src + s * op.bytes);
      for (std::uint64_t j = 0; j < s; ++j)
        std::memcpy(pes[first + j]->lm() + op.dst, buffer.data() + j * op.bytes, op.bytes);
    } else if constexpr (std::is_same_v<Op, program::Gather>) {
      buffer.resize(s * op.bytes);
      for (std::uint64_t j = 0; j < s; ++j)
        std::memcpy(buffer.data() + j * op.bytes, pes[first + j]->lm() + op.src, op.bytes);
      std::memcpy(pes[first]->lm() + op.dst, buffer.data(), buffer.size());
    } else {
      // Summed straight from the LMs, with the first PE's sums as the start (int32 wraps, as the
      // adders do); the result goes to dst only after every source is read, as src and dst may meet.
      buffer.assign(pes[first]->lm() + op.src, pes[first]->lm() + op.src + op.count * 4);
      for (std::uint64_t j = 1; j < s; ++j) add_int32(buffer.data(), pes[first + j]->lm() + op.src, op.count);
      std::memcpy(pes[first]->lm() + op.dst, buffer.data(), op.count * 4);
    }
  }
}

}  // namespace

std::uint64_t Sequencer::port_stage(std::size_t level, Direction d,
                                    const std::vector<layout::PortBytes>& ports, std::uint64_t ready,
                                    InstrRecord& r, std::uint64_t& first_start) {
  const std::vector<Link*>& links = board_.links(level);
  auto port_of = [&](std::uint64_t parent) -> Timeline& {
    return d == Direction::kDown ? links[parent]->down : links[parent]->up;
  };
  std::uint64_t at = ready, longest = 0;
  for (const layout::PortBytes& p : ports) {
    const std::uint64_t cycles = cost_.port(level, d, p.bytes).busy;
    if (cycles == 0) continue;
    at = std::max(at, port_of(p.parent).next_free());
    longest = std::max(longest, cycles);
  }
  if (longest == 0) return ready;
  for (const layout::PortBytes& p : ports) {
    const std::uint64_t cycles = cost_.port(level, d, p.bytes).busy;
    if (cycles > 0) port_of(p.parent).hold(at, cycles, p.bytes);
  }
  r.busy.push_back({port_resource(level, d), longest});
  first_start = std::min(first_start, at);
  return at + longest;
}

std::uint64_t Sequencer::dram_block(std::size_t index, const program::Transfer& t, bool write,
                                    std::uint8_t* staging, std::uint64_t ready, std::uint64_t& dram_start) {
  const program::TensorDecl& tensor = program_->tensors[t.tensor];
  const std::uint64_t eb = core::dtype_bytes(tensor.dtype), base = dram_->base[t.tensor];
  const program::Block& block = t.block;
  const std::uint64_t elements = block.elements();
  dram_start = ready;
  if (elements == 0) return ready;
  // One access per contiguous run of the block's rows, all in one burst.
  BurstExtension burst;
  burst.id = (run_id_ << 32) | index;
  tlm::tlm_generic_payload trans;
  trans.set_extension(&burst);
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  std::uint64_t done = ready;
  // Without staging (timing only, or the bytes moved through DMI): one access of the whole block that
  // moves nothing (TLM's ignore command), for its time.
  const std::uint64_t row = !staging || block.whole || block.shape.empty() ? elements : block.shape.back();
  for (std::uint64_t first = 0; first < elements;) {
    std::uint64_t count = row;
    const std::uint64_t start = block.full_index(first);
    while (first + count < elements && block.full_index(first + count) == start + count) count += row;
    trans.set_command(!staging ? tlm::TLM_IGNORE_COMMAND
                      : write  ? tlm::TLM_WRITE_COMMAND
                               : tlm::TLM_READ_COMMAND);
    trans.set_address(base + start * eb);
    trans.set_data_ptr(staging ? staging + first * eb : nullptr);
    trans.set_data_length(static_cast<unsigned int>(count * eb));
    trans.set_streaming_width(static_cast<unsigned int>(count * eb));
    trans.set_byte_enable_ptr(nullptr);
    trans.set_dmi_allowed(false);
    trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time delay = cycles_to_time(ready) - now;
    board_.dram_socket->b_transport(trans, delay);
    if (trans.is_response_error()) {
      trans.clear_extension(&burst);
      fail(index, fmt::format("DRAM {} of {} bytes at address {} failed: {}", write ? "write" : "read",
                              count * eb, base + start * eb, trans.get_response_string()));
    }
    done = std::max(done, time_to_cycles(now + delay));
    first += count;
  }
  trans.clear_extension(&burst);
  if (burst.started) dram_start = burst.start_cycle;
  const std::uint64_t latency = write ? dram_write_latency_ : dram_read_latency_;
  return done - latency;
}

std::uint8_t* Sequencer::dmi_tensor(const program::Transfer& t, bool write) const {
  if (!dmi_valid_ || !(write ? dmi_.is_write_allowed() : dmi_.is_read_allowed())) return nullptr;
  const std::uint64_t base = dram_->base[t.tensor], bytes = program_->tensors[t.tensor].bytes();
  if (base < dmi_.get_start_address() || base + bytes - 1 > dmi_.get_end_address()) return nullptr;
  return dmi_.get_dmi_ptr() + (base - dmi_.get_start_address());
}

void Sequencer::transfer(std::size_t i, const program::Transfer& t, bool down, std::uint64_t ready,
                         InstrRecord& r, std::uint8_t* staging) {
  const Direction d = down ? Direction::kDown : Direction::kUp;
  const std::uint64_t dram_bytes = down ? t.plan.dram_read_bytes : t.plan.dram_write_bytes;
  std::uint64_t start = UINT64_MAX, dram_start = ready;
  std::uint64_t last = std::max(ready, dram_block(i, t, !down, staging, ready, dram_start));
  if (dram_bytes > 0) {
    r.busy.push_back({0, cost_.dram(dram_bytes).busy});
    start = dram_start;
  }
  std::uint64_t latency = down ? dram_read_latency_ : dram_write_latency_;
  for (std::size_t l = 0; l < board_.config().levels.size(); ++l) {
    last = std::max(last, port_stage(l, d, t.ports[l], ready, r, start));
    latency += cost_.port(l, d, 0).latency;
  }
  r.timing = {start == UINT64_MAX ? ready : start, last + latency};
  add_traffic(t.plan, down, r.traffic);
  (down ? r.dram_read : r.dram_write) = dram_bytes;
  r.lm_bytes = down ? t.plan.levels.back().down_delivered_bytes : t.plan.levels.back().up_sent_bytes;
}

void Sequencer::load(std::size_t i, const program::Load& op, std::uint64_t ready, InstrRecord& r) {
  const program::Transfer& t = *checked_->instrs[i].transfer;
  // The bytes: straight from DRAM's memory when the target offers DMI for them, else read into a
  // staging block through b_transport; the time always comes from b_transport.
  std::uint8_t* dmi = functional_ ? dmi_tensor(t, false) : nullptr;
  if (functional_ && !dmi) staging_.resize(t.block.elements() * t.bound.element_bytes());
  transfer(i, t, true, ready, r, functional_ && !dmi ? staging_.data() : nullptr);
  if (dmi)
    scatter_block(t, dmi, board_.pes(), op.lm, op.pad, &t.block, mac_batch_ ? &shared_ : nullptr);
  else if (functional_)
    scatter_block(t, staging_.data(), board_.pes(), op.lm, op.pad, nullptr, mac_batch_ ? &shared_ : nullptr);
}

void Sequencer::store(std::size_t i, const program::Store& op, std::uint64_t ready, InstrRecord& r) {
  const program::Transfer& t = *checked_->instrs[i].transfer;
  std::uint8_t* dmi = functional_ ? dmi_tensor(t, true) : nullptr;
  if (dmi) {
    gather_block(t, board_.pes(), op.lm, dmi, &t.block);
  } else if (functional_) {
    staging_.resize(t.block.elements() * t.bound.element_bytes());
    gather_block(t, board_.pes(), op.lm, staging_.data());
  }
  transfer(i, t, false, ready, r, functional_ && !dmi ? staging_.data() : nullptr);
}

template <typename Op>
void Sequencer::collective(std::size_t, const Op& op, std::uint64_t ready, InstrRecord& r) {
  const machine::MachineConfig& m = board_.config();
  constexpr bool kBroadcast = std::is_same_v<Op, program::Broadcast>;
  constexpr bool kScatter = std::is_same_v<Op, program::Scatter>;
  constexpr bool kGather = std::is_same_v<Op, program::Gather>;
  const timing::Collective kind = kBroadcast ? timing::Collective::kBroadcast
                                  : kScatter ? timing::Collective::kScatter
                                  : kGather  ? timing::Collective::kGather
                                             : timing::Collective::kReduce;
  const int li = op.level.index;
  std::uint64_t b = 0;
  if constexpr (std::is_same_v<Op, program::Reduce>)
    b = op.count * 4;
  else
    b = op.bytes;
  const auto traffic = cost_.collective_traffic(kind, li, b);
  std::uint64_t start = UINT64_MAX, last = ready, latency = 0;
  for (std::size_t l = static_cast<std::size_t>(li + 1); l < m.levels.size(); ++l) {
    const auto& t = traffic[l];
    report::LinkStats& s = r.traffic[l];
    s = {t.down_sent, t.down_delivered, t.up_sent, t.up_delivered, t.down_busiest, t.up_busiest, {}, {}};
    // Every parent port of the level carries the same: the subtrees work alike.
    std::vector<layout::PortBytes> up, down;
    for (std::uint64_t p = 0; p < board_.links(l).size(); ++p) {
      up.push_back({p, t.up_busiest});
      down.push_back({p, t.down_busiest});
    }
    last = std::max(last, port_stage(l, Direction::kUp, up, ready, r, start));
    last = std::max(last, port_stage(l, Direction::kDown, down, ready, r, start));
    latency += cost_.port(l, Direction::kUp, 0).latency + cost_.port(l, Direction::kDown, 0).latency;
  }
  r.timing = {start == UINT64_MAX ? ready : start, last + latency};
  const std::uint64_t subtree =
      li < 0 ? m.pe_count() : m.pe_count() / m.units_at(static_cast<std::size_t>(li));
  if (functional_) perform_collective(op, board_.pes(), subtree);
}

template void Sequencer::collective(std::size_t, const program::Broadcast&, std::uint64_t, InstrRecord&);
template void Sequencer::collective(std::size_t, const program::Scatter&, std::uint64_t, InstrRecord&);
template void Sequencer::collective(std::size_t, const program::Gather&, std::uint64_t, InstrRecord&);
template void Sequencer::collective(std::size_t, const program::Reduce&, std::uint64_t, InstrRecord&);

}  // namespace treesim::models
