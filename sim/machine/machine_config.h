// The machine description: one tree of levels under a board with DRAM, and the PE's units.
// Plain aggregates, no parser types: sim/machine/machine_yaml.cpp fills them from a file.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/vector_op.h"
#include "sim/machine/memspec.h"

namespace treesim::machine {

enum class DramModel { kSimple, kBanked };
// How a tensor's bytes are spread over the channels of a machine with one DRAM channel per unit of
// a level: by layout (each element in the channel of the unit the first load or store of it puts
// it in, so data stays in its unit's subtree), split (as many contiguous, equal pieces as channels,
// piece c in channel c) or interleaved (in turn, so many bytes at a time).
enum class DramPlacement { kLayout, kSplit, kInterleave };
// Its name in machine files and reports: "layout", "split" or "interleave".
const char* placement_name(DramPlacement p);
inline constexpr std::uint64_t kMaxDramChannels = 1024;

struct DramConfig {
  std::uint64_t bytes = 0;            // per channel
  std::uint64_t bytes_per_cycle = 0;  // per channel; banked: the memspec's peak, rounded down
  std::uint64_t latency_cycles = 0;   // banked: a row hit's latency (tCL + tBURST, and the controller's)
  DramModel model = DramModel::kSimple;
  std::optional<BankedDramConfig> banked;  // with model kBanked
  // One channel per unit of this level (a TLM target each); none: one DRAM for the whole machine.
  std::optional<std::size_t> per_level;
  DramPlacement placement = DramPlacement::kLayout;
  std::uint64_t interleave_bytes = 4096;  // with kInterleave
};

// One level of the tree. The link fields describe the link between a parent and its children of
// this level: each parent has one down port and one up port shared by all those children.
struct LevelConfig {
  std::string name;
  std::uint64_t fanout = 0;        // units of this level under one parent
  std::uint64_t memory_bytes = 0;  // per unit; on the PE level this is the LM
  std::uint64_t down_bytes_per_cycle = 0;
  std::uint64_t up_bytes_per_cycle = 0;
  std::uint64_t latency_cycles = 0;
  bool reduce = false;  // the parent can sum its children's int32 blocks on the way up
};

struct MacConfig {
  std::uint64_t int8_macs_per_cycle = 0;
  std::uint64_t latency_cycles = 0;
};

struct DptDecoderConfig {
  std::uint64_t bytes_per_cycle = 0;
  std::uint64_t latency_cycles = 0;
};

// The ternary MAC path (add / subtract / skip per weight). Absent: ternary MACs run on the int8 MAC
// array at its rate.
struct TernaryMacConfig {
  std::uint64_t macs_per_cycle = 0;
  std::uint64_t latency_cycles = 0;
};

// The MAC unit's sparse walk (`sparse_mac`): what a walk's steps cost, in items, done
// `items_per_cycle` per cycle (far below the dense MAC array's rate: each entry gathers its x value
// by coordinate). Absent: the cost model's defaults (sim/timing/cost_model.h).
// A walk costs entry_items per stored entry it multiplies (per ⌈n / MAC rate⌉ columns of B),
// segment_items per segment whose positions it reads, and level_items[kind] per coordinate it
// steps through at a level of that kind (dense, compressed, singleton, n:m: sim/sparse/walk.h).
struct SparseMacConfig {
  std::uint64_t items_per_cycle = 1;
  std::uint64_t latency_cycles = 0;
  std::uint64_t entry_items = 1;
  std::uint64_t segment_items = 1;
  std::array<std::uint64_t, 4> level_items{};  // dense, compressed, singleton, n_of_m
  bool charges_levels() const { return level_items != std::array<std::uint64_t, 4>{}; }
};
inline constexpr const char* kSparseLevelKinds[] = {"dense", "compressed", "singleton", "n_of_m"};

struct RequantConfig {
  std::uint64_t values_per_cycle = 0;
  std::uint64_t latency_cycles = 0;
};

// Local copies inside a PE's LM.
struct CopyConfig {
  std::uint64_t bytes_per_cycle = 16;
  std::uint64_t latency_cycles = 1;
};

// The PE's vector unit (float32 and int32 element-wise operations and row reductions over LM
// values). An operation moves `values_per_cycle` values a cycle at one cycle per value, after
// `latency_cycles`; ops prices the others, each entry marked assumed when no public source gives it
// (docs/machine-files.md). Operations that need a listed cost (core::needs_listed_cost) cannot run
// on a machine whose table lacks them.
struct VectorOpCost {
  std::uint64_t cycles_per_value = 1;  // lane-cycles each value takes
  std::uint64_t latency_cycles = 0;    // beyond the unit's latency
  bool assumed = true;
};
struct VectorConfig {
  std::uint64_t values_per_cycle = 0;
  std::uint64_t latency_cycles = 0;
  std::map<core::VectorOp, VectorOpCost> ops;
  // The cost of `op`: its entry, the simple operations' default, or nullopt when it must be listed.
  std::optional<VectorOpCost> cost(core::VectorOp op) const;
};

struct PeConfig {
  CopyConfig copy;  // optional in the file; defaults above
  MacConfig mac;
  DptDecoderConfig dpt_decoder;
  // Plain base-3 decoder (repeated division by 3). Absent: the cost model's default, slower than
  // the DPT decoder (sim/timing/cost_model.h).
  std::optional<DptDecoderConfig> base3_decoder;
  std::optional<TernaryMacConfig> ternary_mac;
  std::optional<SparseMacConfig> sparse_mac;
  RequantConfig requant;
  std::optional<VectorConfig> vector;   // absent: the PE has no vector unit
  std::uint64_t words_per_address = 1;  // elements per LM address (`_W` lanes); 1 = no lanes
  // The fewest cycles between the starts of two lock-step PE instructions (MN-Core 2 issues one PE
  // instruction per 4-cycle step); 1: a unit may start whenever it is free.
  std::uint64_t instruction_step_cycles = 1;
};

// Optional energy model, picojoules.
struct EnergyConfig {
  double mac_int8_pj = 0;
  double lm_byte_pj = 0;
  double dram_byte_pj = 0;
  std::map<std::string, double> link_byte_pj;  // per level name
  std::optional<double> vector_lane_cycle_pj;  // a lane-cycle of the vector unit (pe.vector)
};

struct MachineConfig {
  std::string name;
  double clock_ghz = 0;
  DramConfig dram;
  std::vector<LevelConfig> levels;  // root-most first; the last level is the PE
  PeConfig pe;
  std::optional<EnergyConfig> energy;
  // How far the sequencer may run ahead of SystemC time before it synchronises (its TLM quantum):
  // only how often other SystemC processes (a second initiator, a DRAM model that waits) get to run,
  // never a cycle count of the run.
  std::uint64_t quantum_cycles = 1000;

  // Units of level `index` in the whole machine (product of the fan-outs down to it). Never wraps:
  // throws std::overflow_error on a config that validate() would refuse.
  std::uint64_t units_at(std::size_t index) const;
  std::uint64_t pe_count() const { return units_at(levels.size() - 1); }
  const LevelConfig& pe_level() const { return levels.back(); }
  std::uint64_t lm_bytes() const { return pe_level().memory_bytes; }
  // DRAM channels: the units of dram.per_level, or 1.
  std::uint64_t dram_channels() const { return dram.per_level ? units_at(*dram.per_level) : 1; }
  // Index of the level called `name`, or nullopt.
  std::optional<std::size_t> level_index(const std::string& name) const;
};

// Words that cannot name a level: they are layout suffixes or annotations of their own.
bool is_reserved_level_name(const std::string& name);

}  // namespace treesim::machine
