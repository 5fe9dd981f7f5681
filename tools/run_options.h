// Options every simulating command shares (--report, --vcd, --trace-json, --trace-depth,
// --trace-units, --quiet, --timing-only, --threads, --quantum) and how a finished run is reported.
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "models/simulation.h"
#include "sim/machine/machine_config.h"
#include "sim/report/run_stats.h"
#include "tools/output_set.h"

namespace treesim::tools {

struct RunOptions {
  std::string report_path;
  std::string vcd_path;
  std::string json_path;
  int vcd_depth = -1;
  std::string vcd_units;
  bool quiet = false;
  bool timing_only = false;
  unsigned threads = 0;              // --threads: host threads (0: the machine's cores)
  std::uint64_t quantum_cycles = 0;  // --quantum: the sequencer's TLM quantum (0: the machine file's)
  // Stages --report, --vcd (and its .gtkw) and --trace-json in `outputs` (call it before the work, so a bad
  // folder fails early).
  void stage(OutputSet& outputs) const;
  // The simulation's options; the VCD goes to its staged temporary.
  models::SimulationOptions simulation(OutputSet& outputs) const;
  // How the simulation is built (threads, quantum).
  models::SimulationConfig config() const;
};

void add_run_options(CLI::App& cmd, RunOptions& options);

// Prints the summary (unless quiet) and writes the JSON report, staged in `outputs`, when asked.
void finish_run(const machine::MachineConfig& machine, const report::RunStats& stats,
                const RunOptions& options, OutputSet& outputs);

// Runs `program` on a simulation of `machine` built as `config` says, turning simulator and layout
// errors into CliErrors (exit status 2). `after` sees the simulation after the run (its LMs).
models::SimulationResult run_simulation(const machine::MachineConfig& machine,
                                        const models::SimulationConfig& config,
                                        const program::Program& program,
                                        const std::map<std::string, std::vector<std::uint8_t>>& inputs,
                                        const models::SimulationOptions& options,
                                        const std::function<void(models::Simulation&)>& after = {});

// Deterministic pseudo-random bytes (mt19937_64 output, the same on every platform).
std::vector<std::uint8_t> random_bytes(std::uint64_t count, std::uint64_t seed);

}  // namespace treesim::tools
