// The board's DRAM: a TLM-2.0 loosely-timed target. It holds the bytes, annotates every access
// with its port occupancy and latency (it never waits, as the TLM examples' lt_target), offers DMI
// and debug transport, and owns its counters and trace. The board reaches it only through its
// initiator socket, so any TLM-2.0 LT target (a detailed DRAM model) can be bound instead.
//
// Timing, model `simple`: an access arriving at cycle a starts streaming at max(a, next free) and
// holds the port ceil(bytes / bytes_per_cycle) cycles; the annotated delay ends `latency_cycles`
// after the last byte. Accesses that carry the same BurstExtension id form one burst (one
// instruction's rows): the burst holds the port ceil(total bytes / rate) cycles from its first
// access's start. Model `banked`: every access goes to the banks in bursts (dram_banks.h), and
// the delay ends when its last burst's data has moved.
#pragma once

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <memory>
#include <vector>

#include "models/dram_banks.h"
#include "models/lanes.h"
#include "sim/machine/machine_config.h"
#include "sim/timing/cost_model.h"

namespace treesim::models {

// Marks the accesses of one instruction as one burst; the target writes when the burst started.
struct BurstExtension : tlm::tlm_extension<BurstExtension> {
  std::uint64_t id = 0;
  std::uint64_t start_cycle = 0;  // filled in by a target that knows it
  bool started = false;
  // The access writes: the target's timing differs for writes even when the payload moves no
  // bytes (TLM_IGNORE_COMMAND, a timing-only run).
  bool write = false;
  tlm::tlm_extension_base* clone() const override { return new BurstExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const BurstExtension&>(other);
  }
};

class Dram : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Dram> socket;

  // Capacity from machine.dram.bytes (one channel's); timing from the machine's cost model, or its
  // banked model.
  Dram(const sc_core::sc_module_name& name, const machine::MachineConfig& machine);
  ~Dram() override;
  Dram(const Dram&) = delete;
  Dram& operator=(const Dram&) = delete;

  std::uint64_t capacity() const { return capacity_; }
  const Lanes& port() const { return port_; }  // one lane
  std::uint64_t read_bytes() const { return read_bytes_; }
  std::uint64_t write_bytes() const { return write_bytes_; }
  // The banked model's counters of this run; nullptr with the simple model.
  const DramBanks* banks() const { return banks_.get(); }
  // A new run from cycle `origin`: counters restart; the port's trace goes to `trace` when given.
  void start_run(std::uint64_t origin, trace::TraceLog* trace);
  // Room for the first `bytes` (at most the capacity), its pages mapped in one call before a run
  // writes them (host_pages.h); what the DRAM holds does not change.
  void reserve(std::uint64_t bytes);
  void detach_log() { port_.detach_log(); }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  // Copies the payload's bytes in or out; false (and an error response) when out of range.
  bool access(tlm::tlm_generic_payload& trans);

  const std::uint64_t capacity_;
  const timing::CostModel cost_;
  std::vector<std::uint8_t> bytes_;  // grows to the highest address written; beyond it reads zero
  Lanes port_{1};
  std::unique_ptr<DramBanks> banks_;
  std::uint64_t burst_id_ = UINT64_MAX, burst_start_ = 0, burst_bytes_ = 0, burst_cycles_ = 0;
  std::uint64_t read_bytes_ = 0, write_bytes_ = 0;
};

}  // namespace treesim::models
