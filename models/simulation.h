// One simulation run: elaborate the board for a machine, execute a program on it, collect the
// counters, the DRAM contents and (optionally) the VCD trace. SystemC elaborates once per process,
// so simulate() may be called once per process.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/executor.h"
#include "sim/machine/machine_config.h"
#include "sim/program/instruction.h"
#include "sim/report/run_stats.h"
#include "sim/trace/vcd_trace.h"

namespace treesim::models {

struct SimulationOptions {
  std::string vcd_path;  // empty: no trace
  trace::TraceFilter vcd_filter;
  // Instruction ranges [first, last) whose counters are wanted on their own (e.g. place: the load,
  // then the gather).
  std::vector<std::pair<std::size_t, std::size_t>> phases;
};

struct SimulationResult {
  report::RunStats stats;                                 // the whole run
  std::vector<InstrTiming> timings;                       // per instruction
  std::vector<report::RunStats> phases;                   // as SimulationOptions::phases asked
  std::map<std::string, std::vector<std::uint8_t>> dram;  // every tensor after the run
  double elaboration_seconds = 0;
  double simulation_seconds = 0;
  std::uint64_t rss_after_elaboration_bytes = 0;  // resident memory of the process then (Linux)
};

// Throws SimError (bad program), layout::LayoutError, or std::runtime_error (VCD not writable).
SimulationResult simulate(const machine::MachineConfig& machine, const program::Program& program,
                          std::map<std::string, std::vector<std::uint8_t>> inputs,
                          const SimulationOptions& options);

}  // namespace treesim::models
