// A simulation of one machine: it owns the one elaboration (SystemC elaborates once per process)
// — the board, the built-in Dram bound to the board's socket unless the caller binds its own
// TLM-2.0 target — and runs programs on it one after another, each with its own counters, the
// LMs keeping what earlier programs left in them. The only place that calls sc_start().
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/board.h"
#include "models/dram.h"
#include "sim/machine/machine_config.h"
#include "sim/program/checked_program.h"
#include "sim/program/instruction.h"
#include "sim/report/run_stats.h"
#include "sim/topology/topology.h"
#include "sim/trace/trace_filter.h"

namespace treesim::models {

using DramImage = std::map<std::string, std::vector<std::uint8_t>>;

struct SimulationOptions {
  std::string vcd_path;   // empty: no VCD
  std::string gtkw_path;  // with vcd_path: its GTKWave save file, which opens `vcd_name`
  std::string vcd_name;
  std::string json_path;          // empty: no Perfetto / Chrome trace-event JSON
  trace::TraceFilter vcd_filter;  // both traces
  std::string kernel;             // named in the JSON's metadata
  // Instruction ranges [first, last) whose counters are wanted on their own (e.g. place: the load,
  // then the gather).
  std::vector<std::pair<std::size_t, std::size_t>> phases;
  // false (timing only): no bytes are moved and nothing is computed — the same cycles, traffic and
  // counters, no LM is touched, the inputs only say which tensors hold data, and no output is read.
  bool functional = true;
  // true: SimulationResult::dram holds only the tensors a store writes (a kernel's outputs), not the
  // inputs the caller already has.
  bool read_back_stored_only = false;
};

struct SimulationResult {
  report::RunStats stats;                // the whole run
  std::vector<InstrTiming> timings;      // per instruction, cycles from the run's start
  std::vector<report::RunStats> phases;  // as SimulationOptions::phases asked
  DramImage dram;  // every tensor after the run, or the stored ones (options); none when timing only
  // Tensors never stored that a windowed convert read whole from the LMs: their bytes as the first
  // such convert gathered them (functional runs).
  DramImage lm_reads;
  double elaboration_seconds = 0;  // of the Simulation, once
  double simulation_seconds = 0;   // of this run (checks included)
  std::uint64_t syncs = 0;         // times the sequencer synchronised with SystemC time
};

struct SimulationConfig {
  // false: the caller binds board().dram_sockets (one per channel) to its own TLM-2.0 targets before
  // the first run.
  bool bind_dram = true;
  // How far the sequencer may run ahead of SystemC time, in cycles (machine.quantum_cycles when
  // not given).
  std::optional<std::uint64_t> quantum_cycles;
  // Host threads for the PE array's functional work (0: the cores this process may use). Results
  // do not depend on it.
  unsigned threads = 0;
};

class Simulation {
 public:
  explicit Simulation(const machine::MachineConfig& machine, SimulationConfig config = {});
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  Board& board() { return *board_; }
  const machine::MachineConfig& machine() const { return machine_; }
  double elaboration_seconds() const { return elaboration_seconds_; }
  // Host threads for the PE array's functional work from the next run on (0: the usable cores).
  void set_threads(unsigned threads);

  // Runs `program` with `inputs` (tensor name → row-major bytes; other tensors start as zeros and
  // count as never written). Throws SimError with every problem of a program that cannot run on
  // this machine (one per line), or std::runtime_error when the VCD cannot be written.
  SimulationResult run(const program::Program& program, const DramImage& inputs,
                       const SimulationOptions& options = {});
  // The same with the checker's result for `program` on this machine, made by the caller already
  // (a planner that checked the program to estimate it): it is not checked again.
  SimulationResult run(const program::Program& program, const program::CheckedProgram& checked,
                       const DramImage& inputs, const SimulationOptions& options = {});

 private:
  // The tree's units, built on first use (only traces name units).
  const topology::Topology& topology();
  const machine::MachineConfig machine_;
  std::unique_ptr<topology::Topology> topo_;
  std::unique_ptr<Board> board_;
  std::vector<std::unique_ptr<Dram>> drams_;  // one per channel, unless the caller binds its own
  SimulationConfig config_;
  double elaboration_seconds_ = 0;
};

// One program on a fresh simulation (tests, benchmarks and `treesim exec` run single programs).
SimulationResult simulate(const machine::MachineConfig& machine, const program::Program& program,
                          const DramImage& inputs, const SimulationOptions& options = {},
                          SimulationConfig config = {});

}  // namespace treesim::models
