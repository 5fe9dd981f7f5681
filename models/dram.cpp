#include "models/dram.h"

#include <algorithm>
#include <cstring>

#include "models/host/host_pages.h"
#include "models/clock.h"
#include "sim/topology/topology.h"

namespace treesim::models {

Dram::Dram(const sc_core::sc_module_name& name, const machine::MachineConfig& machine)
    : sc_core::sc_module(name), socket("socket"), capacity_(machine.dram.bytes), cost_(machine) {
  if (machine.dram.model == machine::DramModel::kBanked && machine.dram.banked)
    banks_ = std::make_unique<DramBanks>(*machine.dram.banked, machine.clock_ghz);
  socket.register_b_transport(this, &Dram::b_transport);
  socket.register_get_direct_mem_ptr(this, &Dram::get_direct_mem_ptr);
  socket.register_transport_dbg(this, &Dram::transport_dbg);
}

Dram::~Dram() = default;

void Dram::start_run(std::uint64_t origin, trace::TraceLog* trace) {
  read_bytes_ = write_bytes_ = 0;
  if (banks_) banks_->reset_counters();
  burst_id_ = UINT64_MAX;
  // The port is traced on the board (the unit whose socket reaches it).
  port_.start_run(origin, trace, topology::Unit{0}, topology::kBoardLevel, timing::Resource::dram());
}

void Dram::reserve(std::uint64_t bytes) {
  bytes = std::min(bytes, capacity_);
  if (bytes_.capacity() >= bytes) return;
  bytes_.reserve(bytes);
  host::populate_pages(bytes_.data() + bytes_.size(), bytes_.capacity() - bytes_.size());
  socket->invalidate_direct_mem_ptr(0, UINT64_MAX);  // the storage moved
}

bool Dram::access(tlm::tlm_generic_payload& t) {
  const std::uint64_t addr = t.get_address(), len = t.get_data_length();
  if (addr > capacity_ || len > capacity_ - addr) {
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return false;
  }
  if (t.get_byte_enable_ptr() || t.get_streaming_width() < len) {
    t.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return false;
  }
  unsigned char* data = t.get_data_ptr();
  if (t.is_write()) {
    if (bytes_.size() < addr + len) {
      if (bytes_.capacity() < addr + len)
        bytes_.reserve(std::max<std::uint64_t>(addr + len, 2 * bytes_.capacity()));
      bytes_.resize(addr + len, 0);
      socket->invalidate_direct_mem_ptr(0, UINT64_MAX);  // the storage may have moved
    }
    std::memcpy(bytes_.data() + addr, data, len);
  } else if (t.is_read()) {
    const std::uint64_t have = addr < bytes_.size() ? std::min<std::uint64_t>(len, bytes_.size() - addr) : 0;
    if (have) std::memcpy(data, bytes_.data() + addr, have);
    std::memset(data + have, 0, len - have);
  }
  t.set_response_status(tlm::TLM_OK_RESPONSE);
  return true;
}

void Dram::b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  if (!access(t)) return;
  const std::uint64_t len = t.get_data_length();
  BurstExtension* burst = nullptr;
  t.get_extension(burst);
  const bool write = t.is_write() || (burst && burst->write);
  (write ? write_bytes_ : read_bytes_) += len;
  const std::uint64_t arrival = time_to_cycles(sc_core::sc_time_stamp() + delay);
  if (banks_) {
    const std::uint64_t bus_before = banks_->bus_cycles();
    const DramBanks::Served s = banks_->access(t.get_address(), len, write, arrival);
    // The port's timeline: the cycles its data buses moved this access's data, from its first byte.
    const std::uint64_t busy = banks_->to_machine(banks_->bus_cycles() - bus_before);
    port_.hold_all(std::max(s.first_data, port_.latest_free()), busy, len);
    if (burst) {  // this access's start; the initiator keeps the earliest of its burst
      burst->start_cycle = s.first_data;
      burst->started = true;
    }
    delay = cycles_to_time(s.done) - sc_core::sc_time_stamp();
    return;
  }
  const auto cycles = [&](std::uint64_t bytes) { return cost_.dram_channel(bytes).busy; };
  if (!burst || burst->id != burst_id_) {  // a new burst
    burst_id_ = burst ? burst->id : UINT64_MAX;
    burst_start_ = std::max(arrival, port_.latest_free());
    burst_bytes_ = burst_cycles_ = 0;
  }
  const std::uint64_t before = burst_cycles_;
  burst_bytes_ += len;
  burst_cycles_ = cycles(burst_bytes_);
  // The burst's port time grows by what this access adds (the port's timeline traces it).
  port_.hold_all(burst_start_ + before, burst_cycles_ - before, len);
  if (burst) {
    burst->start_cycle = burst_start_;
    burst->started = true;
  }
  const std::uint64_t done = burst_start_ + burst_cycles_ + cost_.dram_channel(0).latency;
  delay = cycles_to_time(done) - sc_core::sc_time_stamp();
}

bool Dram::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  // The storage grows on writes, so a pointer is only valid up to its current size (never empty:
  // the descriptor is also how an initiator learns the access latency).
  if (bytes_.empty()) bytes_.resize(64, 0);
  dmi.allow_read_write();
  dmi.set_dmi_ptr(bytes_.data());
  dmi.set_start_address(0);
  dmi.set_end_address(bytes_.size() - 1);
  dmi.set_read_latency(cycles_to_time(cost_.dram_channel(0).latency));
  dmi.set_write_latency(cycles_to_time(cost_.dram_channel(0).latency));
  return true;
}

unsigned int Dram::transport_dbg(tlm::tlm_generic_payload& t) { return access(t) ? t.get_data_length() : 0; }

}  // namespace treesim::models
