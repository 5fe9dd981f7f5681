// The machine's instruction issue: one SC_THREAD issues a program in order. Each instruction waits
// for the data it reads (the scoreboard), then asks the modules on its path for their time — DRAM
// through the initiator socket (b_transport), the tree levels' ports through `levels`, the PE
// array's units through `pes` — and has them do its functional work. Independent instructions
// overlap, so instructions start out of order: the sequencer keeps every time as a cycle count and
// runs ahead of SystemC time (temporal decoupling) with a tlm_quantumkeeper. Its local time is the
// DRAM port's horizon, the last cycle a DRAM access has held it to: no later access can arrive
// before it, so the sequencer may sync up to it at no cost in accuracy. It syncs when the quantum
// is used up, and follows a target that returns with SystemC time advanced (one that calls wait()
// in b_transport); at the end it waits until the last instruction completes. Never a process per
// PE and never a clocked process.
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <exception>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/dram_map.h"
#include "models/pe_array.h"
#include "models/tree_level.h"
#include "sim/program/checked_program.h"
#include "sim/report/run_stats.h"
#include "sim/timing/cost_model.h"
#include "sim/timing/scoreboard.h"
#include "sim/trace/trace_log.h"

namespace treesim::models {

// A program that cannot run on this machine: what() is one line naming the instruction.
class SimError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct InstrTiming {
  std::uint64_t start = 0;  // cycles from the run's start
  std::uint64_t end = 0;
};

// What one instruction did: when, what it moved and computed, and how long it held each resource
// kind (its busiest port or PE of the kind, as the roofline counts them).
struct InstrRecord {
  InstrTiming timing;
  std::uint64_t ready = 0;               // when its data were ready (cycles from the run's start)
  std::optional<std::size_t> waits_for;  // the instruction whose access set `ready`
  timing::Work work;
  std::uint64_t lm_peak = 0;  // the highest LM byte it wrote, + 1
  std::vector<std::pair<timing::Resource, std::uint64_t>> busy;
};

// A tlm_quantumkeeper with the sequencer's own quantum instead of the process-wide global one, so
// that every simulation in a process keeps its own setting.
class QuantumKeeper : public tlm_utils::tlm_quantumkeeper {
 public:
  explicit QuantumKeeper(const sc_core::sc_time& quantum) : quantum_(quantum) {}
  void set_quantum(const sc_core::sc_time& quantum) { quantum_ = quantum; }

 protected:
  sc_core::sc_time compute_local_quantum() override { return quantum_; }

 private:
  sc_core::sc_time quantum_;
};

// What a run asks of the sequencer besides the program.
struct IssueOptions {
  bool functional = true;            // false: timing only, no byte moved and nothing computed
  trace::TraceLog* trace = nullptr;  // instruction spans, when traced
};

class Sequencer : public sc_core::sc_module {
 public:
  // One per DRAM channel: "dram" alone, or dram_0, dram_1, ... (models/channel_names.h).
  sc_core::sc_vector<tlm_utils::simple_initiator_socket_tagged<Sequencer>> dram;
  sc_core::sc_port<TreeLevelIf, 0> levels;  // one per machine level, root first
  sc_core::sc_port<PeArrayIf> pes;

  SC_HAS_PROCESS(Sequencer);
  // `quantum_cycles`: how far the sequencer may run ahead of SystemC time (the global quantum).
  Sequencer(const sc_core::sc_module_name& name, const machine::MachineConfig& machine,
            std::uint64_t quantum_cycles);
  Sequencer(const Sequencer&) = delete;
  Sequencer& operator=(const Sequencer&) = delete;

  // Arms a run: the next sc_start() issues `program` from the current time. The references must
  // stay valid until the run has ended. `written`: DRAM ranges that hold data before the run.
  void arm(const program::Program& program, const program::CheckedProgram& checked, const DramMap& dram,
           const std::vector<timing::Range>& written, IssueOptions options);
  // After the run: rethrows what stopped it (SimError for a bad program), else its records.
  const std::vector<InstrRecord>& records() const;
  // From the next run on, the sequencer runs at most `cycles` ahead of SystemC time.
  void set_quantum_cycles(std::uint64_t cycles);
  // Times the sequencer synchronised with SystemC time in the last run (quantum used up or a target
  // that advanced time).
  std::uint64_t syncs() const { return syncs_; }
  // Functional runs: each tensor a windowed convert read from the LMs, whole, as the first one
  // gathered it (a graph keeps a convolution's output there and verifies it so).
  const std::map<std::string, std::vector<std::uint8_t>>& lm_reads() const { return lm_reads_; }

 private:
  void issue();  // the thread
  // A DRAM target's DMI pointer is no longer valid (its storage moved).
  void invalidate_dmi(int channel, sc_dt::uint64, sc_dt::uint64) { dmi_valid_[channel] = false; }
  void run_program();
  void run_instruction(std::size_t index);
  // Records that instruction `index` cannot run (the first such is the run's error) and stops the
  // issue: nothing is thrown on the thread's coroutine stack (AddressSanitizer cannot follow an
  // exception there); records() throws it on the caller's.
  void fail(std::size_t index, const std::string& message);
  bool failed() const { return error_.has_value() || host_error_ != nullptr; }
  // Loads, stores and collectives (sequencer_transfer.cpp).
  void load(std::size_t index, const program::Load& op, std::uint64_t ready, InstrRecord& r);
  void store(std::size_t index, const program::Store& op, std::uint64_t ready, InstrRecord& r);
  void transfer(std::size_t index, const program::Transfer& t, bool down, std::uint64_t ready, InstrRecord& r,
                std::uint8_t* staging);
  std::uint8_t* dmi_tensor(const program::Transfer& t, bool write) const;
  void collective(std::size_t index, std::uint64_t ready, InstrRecord& r);
  // LMs → LMs between two layouts on the tree (sequencer_convert.cpp).
  void convert(std::size_t index, const program::Convert& op, std::uint64_t ready, InstrRecord& r);
  // With DRAM channels: the first level's ports carry only what crosses between its units'
  // subtrees (sequencer_channels.cpp): they join `start` and `last`; returns their latency.
  std::uint64_t cross_stage(const program::Transfer& t, bool down, std::uint64_t ready, InstrRecord& r,
                            std::uint64_t& start, std::uint64_t& last);
  // Reads (or writes) a block of a DRAM tensor through the socket; returns the cycle its DRAM
  // stage ends (latency excluded) and sets `dram_start`.
  std::uint64_t dram_block(std::size_t index, const program::Transfer& t, bool write, std::uint8_t* staging,
                           std::uint64_t ready, std::uint64_t& dram_start);
  // The DRAM port is held up to `cycle`: the quantum keeper's local time grows to it, and the
  // sequencer syncs when the quantum is used up.
  void advance_horizon(std::uint64_t cycle);
  // The PE units (sequencer_compute.cpp).
  void compute(std::size_t index, std::uint64_t ready, InstrRecord& r);
  void log_span(std::size_t index, std::uint64_t ready, std::size_t waits_for, const InstrRecord& r);

  const machine::MachineConfig& machine_;
  const timing::CostModel cost_;
  QuantumKeeper keeper_;
  sc_core::sc_event start_;
  const program::Program* program_ = nullptr;
  const program::CheckedProgram* checked_ = nullptr;
  const DramMap* dram_map_ = nullptr;
  IssueOptions options_;
  std::uint64_t origin_ = 0, end_ = 0, run_id_ = 0, syncs_ = 0;
  std::uint64_t dram_read_latency_ = 0, dram_write_latency_ = 0;
  std::vector<tlm::tlm_dmi> dmi_;  // per channel
  std::vector<bool> dmi_valid_;
  timing::Scoreboard scoreboard_;
  std::vector<InstrRecord> records_;
  std::vector<std::vector<bool>> dead_requant_;  // per instruction: PEs whose requant no one reads
  // Scratch that only grows: a pass's loads of different sizes reuse it without clearing it again.
  static void grow(std::vector<std::uint8_t>& v, std::size_t n) {
    if (v.size() < n) v.resize(n);
  }
  std::vector<std::uint8_t> staging_;
  std::map<std::string, std::vector<std::uint8_t>> lm_reads_;
  std::vector<std::uint8_t> window_source_;  // a windowed load's tensor elements, before the im2col
  std::optional<std::string> error_;         // why the program cannot run (SimError's text)
  std::exception_ptr host_error_;            // an unexpected failure on the host
};

// The counters of instructions [first, last) of a finished run (cycles = their last completion).
report::RunStats collect_stats(const machine::MachineConfig& m, const program::Program& program,
                               const std::vector<InstrRecord>& records, std::size_t first, std::size_t last);

}  // namespace treesim::models
