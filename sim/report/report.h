// The report of a run, derived from the machine and the raw counters: the JSON document of
// `--report` and the short human summary are two printers of the same figures.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "sim/machine/machine_config.h"
#include "sim/report/run_stats.h"

namespace treesim::report {

inline constexpr int kSchemaVersion = 1;

struct Roofline {
  std::uint64_t cycles = 0;
  std::string resource;                         // the bound that sets it: "mac", "dram", "L1B.down", ...
  std::map<std::string, std::uint64_t> bounds;  // every resource's bound
};

// The largest of: MACs / (PEs × MACs per cycle), DPT bytes and requant values likewise, DRAM
// bytes / DRAM bytes per cycle, and every level's busiest-port bytes / its rate, per direction.
Roofline roofline(const machine::MachineConfig& machine, const RunStats& stats);

// Picojoules by component; empty when the machine has no energy section.
std::map<std::string, double> energy_pj(const machine::MachineConfig& machine, const RunStats& stats);

std::string report_json(const machine::MachineConfig& machine, const RunStats& stats);
std::string summary_text(const machine::MachineConfig& machine, const RunStats& stats);

}  // namespace treesim::report
