// The board's instruction issue. One SC_METHOD issues a program in order: each instruction waits
// for the data it reads (the scoreboard), then asks the modules on its path for their time — DRAM
// through the board's TLM initiator socket (b_transport annotates the delay), every link port it
// uses, every PE's unit — and does its functional work. Independent instructions overlap, so
// start times are not monotonic: the sequencer runs ahead of SystemC time for the whole program
// (temporal decoupling, every delay annotated relative to the run's start) and synchronises once,
// when the last instruction completes. Never a process per PE and never a clocked process.
#pragma once

#include <systemc>
#include <tlm>

#include <cstdint>
#include <exception>
#include <optional>
#include <stdexcept>
#include <vector>

#include "models/dead_requant.h"
#include "models/lm_replicas.h"
#include "models/mac_batch.h"
#include "models/pe.h"
#include "sim/program/checked_program.h"
#include "sim/report/run_stats.h"
#include "sim/timing/cost_model.h"
#include "sim/timing/scoreboard.h"
#include "sim/trace/trace_log.h"

namespace treesim::models {

class Board;

// A program that cannot run on this machine: what() is one line naming the instruction.
class SimError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct InstrTiming {
  std::uint64_t start = 0;  // cycles from the run's start
  std::uint64_t end = 0;
};

// What one instruction did: when, what it moved and computed, and which resource kinds it held
// for how long (its busiest port or PE per kind, as the roofline counts them).
struct InstrRecord {
  InstrTiming timing;
  std::vector<report::LinkStats> traffic;  // per level (no per-port detail)
  std::uint64_t dram_read = 0, dram_write = 0;
  std::uint64_t macs = 0, dpt_bytes = 0, requant_values = 0, copy_bytes = 0, lm_bytes = 0, lm_peak = 0;
  std::uint64_t ternary_macs = 0, base3_bytes = 0;          // of macs and dpt_bytes: on their own datapaths
  std::uint64_t sparse_macs = 0, sparse_items = 0;          // of macs: by sparse walks, and their items
  std::vector<std::pair<std::size_t, std::uint64_t>> busy;  // (resource id, cycles)
};

// Resource ids of InstrRecord::busy: dram, the PE units, then each level's down and up ports.
std::size_t resource_count(const machine::MachineConfig& m);
std::string resource_name(const machine::MachineConfig& m, std::size_t id);
inline std::size_t unit_resource(timing::Unit u) { return 1 + static_cast<std::size_t>(u); }
inline std::size_t port_resource(std::size_t level, timing::Direction d) {
  return 5 + 2 * level + (d == timing::Direction::kUp ? 1 : 0);
}

// Where each program tensor lives in DRAM (byte address, by tensor index).
struct DramMap {
  std::vector<std::uint64_t> base;
};

class Sequencer : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Sequencer);
  Sequencer(const sc_core::sc_module_name& name, Board& board);
  Sequencer(const Sequencer&) = delete;
  Sequencer& operator=(const Sequencer&) = delete;

  // Arms a run: the next sc_start() issues `program` from the current time. The references must
  // stay valid until the run has ended.
  // `written`: DRAM ranges that hold data before the run (its inputs).
  void arm(const program::Program& program, const program::CheckedProgram& checked, const DramMap& dram,
           const std::vector<timing::Range>& written, trace::TraceLog* trace, bool functional = true);
  // After the run: rethrows what stopped it (SimError for a bad program), else its records.
  const std::vector<InstrRecord>& records() const;
  std::uint64_t origin() const { return origin_; }
  // The DRAM target's DMI pointer is no longer valid (the board's socket forwards the call).
  void invalidate_dmi() { dmi_valid_ = false; }

  // One lock-step step of a PE unit with each PE's own work (index = PE id): every PE holds its
  // unit for its work, all start when the last of them is free (not before `ready`), and the step
  // ends — the returned cycle — when the slowest PE's result is ready. Sets `start`.
  std::uint64_t unit_step(timing::Unit unit, const std::vector<std::uint64_t>& work_per_pe,
                          std::uint64_t ready, InstrRecord& r, std::uint64_t& start,
                          timing::Path path = timing::Path::kDefault);

 private:
  void issue();  // the process
  void run_instruction(std::size_t index);
  // Makes real the shared LM ranges that instruction `index` touches other than as MAC operands.
  void unshare(std::size_t index);
  [[noreturn]] void fail(std::size_t index, const std::string& message) const;
  // Loads, stores and collectives (sequencer_transfer.cpp).
  void load(std::size_t index, const program::Load& op, std::uint64_t ready, InstrRecord& r);
  void store(std::size_t index, const program::Store& op, std::uint64_t ready, InstrRecord& r);
  // The timing of a load (down) or store (up): DRAM through the socket, then the ports level by
  // level; the bytes are in staging_ (functional runs).
  void transfer(std::size_t index, const program::Transfer& t, bool down, std::uint64_t ready, InstrRecord& r,
                std::uint8_t* staging);
  // The tensor's bytes in DRAM's memory when the target granted DMI for them (read or write), else
  // null.
  std::uint8_t* dmi_tensor(const program::Transfer& t, bool write) const;
  template <typename Op>
  void collective(std::size_t index, const Op& op, std::uint64_t ready, InstrRecord& r);
  // Reads (or writes) a block of a DRAM tensor through the socket; returns the cycle its DRAM
  // stage ends (latency excluded) and sets `dram_start`.
  std::uint64_t dram_block(std::size_t index, const program::Transfer& t, bool write, std::uint8_t* staging,
                           std::uint64_t ready, std::uint64_t& dram_start);
  // A stage over some ports of one level: all start together when the last of them is free.
  std::uint64_t port_stage(std::size_t level, timing::Direction d,
                           const std::vector<layout::PortBytes>& ports, std::uint64_t ready, InstrRecord& r,
                           std::uint64_t& first_start);
  // The PE units (sequencer_compute.cpp): every PE does its work; the instruction ends with the
  // slowest PE.
  void compute(std::size_t index, std::uint64_t ready, InstrRecord& r);
  // Logs instruction `index`'s span and arguments for the traces.
  void log_span(std::size_t index, std::uint64_t ready, std::size_t waits_for, const InstrRecord& r);

  Board& board_;
  const timing::CostModel cost_;
  sc_core::sc_event start_;
  const program::Program* program_ = nullptr;
  const program::CheckedProgram* checked_ = nullptr;
  const DramMap* dram_ = nullptr;
  trace::TraceLog* trace_ = nullptr;
  bool functional_ = true;
  std::uint64_t origin_ = 0, end_ = 0, run_id_ = 0;
  std::uint64_t dram_read_latency_ = 0, dram_write_latency_ = 0;
  tlm::tlm_dmi dmi_;
  bool dmi_valid_ = false;
  timing::Scoreboard scoreboard_;
  std::vector<InstrRecord> records_;
  MacScratch mac_scratch_;  // the widened kernel, on CPUs without AVX2
  const std::optional<MacIsa> mac_isa_ = fastest_mac_isa();
  std::optional<MacBatch> mac_batch_ = mac_isa_ ? std::optional<MacBatch>(MacBatch(*mac_isa_)) : std::nullopt;
  LmReplicas shared_;                            // LM ranges loads shared among PEs instead of copying
  std::vector<std::vector<bool>> dead_requant_;  // per instruction: PEs whose requant no one reads
  std::vector<std::uint8_t> staging_;
  std::exception_ptr error_;
};

// The counters of instructions [first, last) of a finished run (cycles = their last completion).
report::RunStats collect_stats(const machine::MachineConfig& m, const program::Program& program,
                               const std::vector<InstrRecord>& records, std::size_t first, std::size_t last);

}  // namespace treesim::models
