// Raw counters of one run. Derived figures (seconds, utilization, roofline, energy) are computed
// when the report is built, never stored here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/timing/critical_path.h"
#include "sim/timing/work.h"

namespace treesim::report {

// One parent's port towards its children: the cycles it was held and the bytes it carried.
struct PortStats {
  std::uint64_t busy_cycles = 0;
  std::uint64_t bytes = 0;
};

// Per parent port of one level's links (index = the parent's global index at the level above; one
// for level 0, the board's), for a whole run: which units' links worked and which idled.
struct LevelPorts {
  std::vector<PortStats> down, up;
};

// The instructions of one kind (docs/reports.md §9.2 defines both figures, with a worked example).
struct KindStats {
  std::uint64_t count = 0;
  // Σ over the instructions of the cycles each held its busiest resource (its longest stage: a PE
  // unit, DRAM or one level's ports), as if nothing else ran; latencies and waits excluded.
  std::uint64_t busy_cycles = 0;
  // Cycles in which at least one of them was in flight: the union of their [start, end) intervals
  // (latencies included, overlap counted once).
  std::uint64_t span_cycles = 0;
};

struct VerifyResult {
  bool ok = true;
  std::uint64_t mismatches = 0;
  std::string first_mismatch;  // e.g. "C[3,7]: got 12, expected 13"
};

// A part of a run reported on its own (e.g. the gather after `treesim place`'s load).
struct PhaseStats {
  std::uint64_t cycles = 0;  // its own duration
  timing::Work work;
  std::optional<std::uint64_t> lm_bytes_per_pe;  // the LM it keeps in use, when the kernel says
};

// A sparse kernel's raw figures: how A's entries fell on the PEs (the report derives the rest).
struct SparseStats {
  std::uint64_t nnz = 0;  // A's nonzeros
  std::uint64_t pes = 0, grid_rows = 1, grid_cols = 1;
  std::vector<std::uint64_t> pe_nnz;      // per PE: its nonzeros
  std::vector<std::uint64_t> pe_entries;  // per PE: the stored entries its walk visits (padding included)
  std::uint64_t pe_items_max = 0, pe_items_total = 0;  // walk items (entries and segments)
  // Σ over PEs of each level array's bytes at its width ("pos[1]", "crd[1]", ..., "values").
  std::vector<std::pair<std::string, std::uint64_t>> storage_bytes;
};

// One DRAM channel's traffic and busy cycles (machines with a channel per unit of a level).
struct DramChannelStats {
  std::uint64_t read_bytes = 0, write_bytes = 0, busy_cycles = 0;
};

// A banked DRAM's commands (all channels): row-buffer outcomes per burst, and energy per command class.
struct DramBankStats {
  std::uint64_t reads = 0, writes = 0, row_hits = 0, row_misses = 0, row_conflicts = 0;
  std::uint64_t activates = 0, precharges = 0, refreshes = 0;
  double activate_pj = 0, read_pj = 0, write_pj = 0, refresh_pj = 0;
  double row_hit_rate() const {
    const std::uint64_t n = row_hits + row_misses + row_conflicts;
    return n ? static_cast<double>(row_hits) / static_cast<double>(n) : 0;
  }
  // Several channels' commands together: every count and energy adds.
  DramBankStats& operator+=(const DramBankStats& o) {
    reads += o.reads, writes += o.writes, row_hits += o.row_hits, row_misses += o.row_misses;
    row_conflicts += o.row_conflicts, activates += o.activates, precharges += o.precharges;
    refreshes += o.refreshes, activate_pj += o.activate_pj, read_pj += o.read_pj;
    write_pj += o.write_pj, refresh_pj += o.refresh_pj;
    return *this;
  }
};

struct RunStats {
  std::string kernel;
  bool functional = true;  // false: a timing-only run (no bytes moved, nothing computed)
  std::uint64_t cycles = 0;
  timing::Work work;  // what the run moved and computed
  // The MACs the problem itself needs (M·N·K for a GEMM, stored nonzeros × n for a sparse product),
  // without those the PEs issue on padding; none for a kernel that does no MACs.
  std::optional<std::uint64_t> useful_macs;
  std::vector<LevelPorts> ports;  // per level, per parent port (whole runs only)
  // Σ over instructions of the cycles each held each resource kind (its busiest unit of the kind).
  std::map<std::string, std::uint64_t> resource_busy_cycles;  // "mac", "dram", "L2B.down", ...
  // Per PE unit ("mac", ...): every PE's busy cycles (index = PE id), for a whole run.
  std::map<std::string, std::vector<std::uint64_t>> pe_unit_busy_cycles;
  std::map<std::string, KindStats> instructions;  // "load", "mac", ...
  std::uint64_t lm_peak_bytes_per_pe = 0;
  std::optional<VerifyResult> verify;
  std::map<std::string, std::uint64_t> extra;         // kernel-specific counts, top-level keys of the report
  std::optional<timing::CriticalPath> critical_path;  // the whole run's (not a phase's)
  std::map<std::string, PhaseStats> phases;           // reported under "phases"
  std::map<std::string, std::string> info;            // kernel-specific text (plan, layouts), under "info"
  std::optional<SparseStats> sparse;                  // sparse kernels
  std::vector<DramChannelStats> dram_channels;        // with more than one channel (whole runs only)
  std::optional<DramBankStats> dram_banks;            // a banked DRAM model (whole runs only)
};

}  // namespace treesim::report
