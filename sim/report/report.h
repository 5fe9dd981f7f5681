// The report of a run: make_report derives every figure once from the machine and the raw
// counters, into one plain value; the text summary and the JSON document are two renderers of it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/machine/machine_config.h"
#include "sim/report/run_stats.h"

namespace treesim::report {

inline constexpr int kSchemaVersion = 2;  // 2: instructions.<kind>.cycles became busy_cycles and span_cycles

struct Roofline {
  std::uint64_t cycles = 0;
  std::string resource;                         // the bound that sets it: "mac", "dram", "L1B.down", ...
  std::map<std::string, std::uint64_t> bounds;  // every resource's bound
  double fraction_of_run = 0;                   // cycles / the run's cycles (0 for an empty run)
};

// One tree level's links to its parents, named by the machine: the level's traffic and, for whole
// runs, every parent port's.
struct LevelReport {
  std::string name;
  timing::LinkWork traffic;
  LevelPorts ports;
};

// A shared resource of §8.1 of the timing model: "mac", "dram", "L2B.down", ...
struct UnitReport {
  std::string name;
  std::uint64_t busy_cycles = 0;
  double utilization = 0;  // busy_cycles / cycles
  // PE units: the least and most busy PE (they differ when PEs get unequal work).
  std::optional<std::pair<std::uint64_t, std::uint64_t>> pe_busy_min_max;
};

struct KindReport {
  std::string kind;  // "load", "mac", ...
  std::uint64_t count = 0;
  std::uint64_t busy_cycles = 0;  // as KindStats
  std::uint64_t span_cycles = 0;
};

// Picojoules by component, from the machine's energy section.
struct EnergyReport {
  double dram = 0;
  double links = 0;
  double lm = 0;
  double mac = 0;
  std::optional<double> vector;  // with a vector unit and energy.vector_lane_cycle_pj
  double total = 0;
};

// A sparse kernel's split of A over the PEs (docs/reports.md §9.5).
struct SparseReport {
  std::uint64_t nnz = 0;             // A's nonzeros
  std::uint64_t stored_entries = 0;  // Σ over PEs of the entries walked (padding, stored zeros included)
  std::uint64_t pes = 0, grid_rows = 1, grid_cols = 1;
  std::uint64_t pe_nnz_min = 0, pe_nnz_max = 0;
  double pe_nnz_mean = 0;
  double imbalance = 0;  // pe_nnz_max / pe_nnz_mean (1: balanced; 0: no nonzeros)
  // Lock-step MAC slots of the walk that made no useful product: pes × the most entries a PE walks
  // − nnz (PEs idle while the busiest works, and padding or stored zeros walked).
  std::uint64_t wasted_mac_slots = 0;
  std::uint64_t pe_items_max = 0;  // the busiest PE's walk items (entries and segments)
  double pe_items_mean = 0;
  std::vector<std::pair<std::string, std::uint64_t>> storage_bytes;  // per level array, Σ over PEs
};

struct PhaseReport {
  std::string name;
  std::uint64_t cycles = 0;
  timing::Work work;
  std::vector<LevelReport> levels;
  std::optional<std::uint64_t> lm_bytes_per_pe;
};

struct Report {
  int schema_version = kSchemaVersion;
  std::string machine;
  std::string kernel;
  bool functional = true;  // false: timing only
  double clock_ghz = 0;
  std::uint64_t cycles = 0;
  double seconds = 0;  // simulated: cycles / clock, not host time
  Roofline roofline;
  std::optional<timing::CriticalPath> critical_path;  // RunStats's
  std::vector<LevelReport> levels;                    // machine order, root-most first
  std::vector<UnitReport> units;                      // name order
  std::vector<KindReport> instructions;               // kind-name order
  timing::Work work;                                  // what the run moved and computed (RunStats::work)
  // The work of the machine's units that have a work key (pe_units.h), in unit order.
  std::vector<std::pair<std::string, std::uint64_t>> unit_work;
  std::optional<std::uint64_t> useful_macs;  // RunStats::useful_macs
  std::uint64_t lm_peak_bytes_per_pe = 0;
  std::vector<DramChannelStats> dram_channels;  // RunStats's, when more than one channel
  std::optional<DramBankStats> dram_banks;      // RunStats's, with a banked DRAM
  std::optional<EnergyReport> energy_pj;        // only when the machine has an energy section
  std::optional<VerifyResult> verify;
  std::vector<PhaseReport> phases;              // name order
  std::optional<SparseReport> sparse;           // sparse kernels
  std::map<std::string, std::string> info;      // kernel descriptions (plan, layouts)
  std::map<std::string, std::uint64_t> fields;  // kernel-specific counts (m, n, gather_cycles, ...)
};

// The cost model's roofline of the run's work (timing::CostModel::roofline), and its share of the run.
Roofline roofline(const machine::MachineConfig& machine, const RunStats& stats);

Report make_report(const machine::MachineConfig& machine, const RunStats& stats);

// The `--report` document (schema_version 2), pretty-printed, ending in a newline.
std::string to_json(const Report& report);
// The short human summary a simulating command prints.
std::string to_text(const Report& report);

}  // namespace treesim::report
