// Derived figures of a machine: unit counts, memory, peak compute, bandwidths, machine balance.
// The rates come from the cost model (CostModel::peaks), the one place that reads them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/machine/machine_config.h"

namespace treesim::timing {

struct LevelSummary {
  std::string name;
  std::uint64_t fanout = 0;
  std::uint64_t units = 0;
  std::uint64_t memory_bytes_per_unit = 0;
  std::uint64_t memory_bytes_total = 0;
  // Every parent's port towards this level, all parents together.
  double down_bytes_per_second = 0;
  double up_bytes_per_second = 0;
  std::uint64_t latency_cycles = 0;
  bool reduce = false;
};

struct MachineSummary {
  std::string name;
  double clock_ghz = 0;
  std::vector<LevelSummary> levels;
  std::uint64_t pes = 0;
  std::uint64_t lm_bytes_per_pe = 0;
  std::uint64_t lm_bytes_total = 0;
  double peak_int8_ops_per_second = 0;  // PEs × MACs/cycle × 2 × clock
  std::uint64_t dram_bytes = 0;         // all channels
  double dram_bytes_per_second = 0;     // all channels
  std::uint64_t dram_channels = 1;
  std::string dram_channel_level;  // the level with a channel per unit ("" for one DRAM)
  machine::DramPlacement dram_placement = machine::DramPlacement::kLayout;  // with channels
  std::uint64_t dram_interleave_bytes = 0;                                  // with kInterleave
  std::string dram_model = "simple";                                        // or "banked"
  std::string dram_memspec;               // banked: the memspec's name and standard
  std::uint64_t dram_latency_cycles = 0;  // simple: its latency; banked: a row hit's
  // DRAM's latency and every level's: what a load or a store crosses between DRAM and a PE, on
  // top of its stages (docs/timing.md §8.2). No run ends before one load's and one store's.
  std::uint64_t path_latency_cycles = 0;
  std::uint64_t pe_instruction_step_cycles = 1;
  double ops_per_dram_byte = 0;  // machine balance: peak ops per DRAM byte
};

MachineSummary summarize(const machine::MachineConfig& config);

}  // namespace treesim::timing
