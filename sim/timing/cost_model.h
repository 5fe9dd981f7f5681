// The one cost model: the closed forms of the timing model, written once and SystemC-free. The
// SystemC modules (Dram, links, PE units), the roofline and every kernel planner's estimate call
// it; outside it and the machine-file reader nothing reads a rate or a latency field. Not yet
// here: on a machine with a DRAM channel per unit of a level (MN-Core 2's Groups), which channel
// holds each element and which bytes cross between channels is worked out only by the models
// (models/dram_placement.h, models/sequencer_channels.cpp); the forms below see one DRAM of the
// channels' total rate, so the planners' estimates are off there.
//
//   PE unit alone:   latency + ceil(work per PE / rate)            (MAC, DPT decode, requant, copy)
//   vector op alone: pe.vector.latency + op latency + ceil(values per PE × op cycles per value /
//                    pe.vector.values_per_cycle)
//   transfer alone:  Σ latencies on its path + max over stages of ceil(bytes at the stage's busiest
//                    port / that port's rate)  (cut-through; DRAM is a stage when it is touched)
//   roofline:        the largest of every resource's total work / its aggregate rate
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/layout/convert.h"
#include "sim/layout/loader_plan.h"
#include "sim/machine/machine_config.h"
#include "sim/timing/resource.h"
#include "sim/timing/work.h"

namespace treesim::timing {

inline std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0 : a / b + (a % b != 0); }

// The datapath a unit's work runs on, when the unit has more than one: the MAC unit's int8 array or
// its ternary path (pe.ternary_mac; absent: the int8 array's rate), the decoder's DPT datapath
// (which also decodes BCT, 4 trits per byte) or its base-3 datapath (pe.base3_decoder; absent: a
// quarter of the DPT decoder's byte rate, at least 1, and 4 more cycles of latency, for the four
// sequential divisions by 3 a byte needs), or the MAC unit's sparse walk (pe.sparse_mac; absent: one
// item per cycle — a stored entry or a position read, each an LM access the walk waits on — at the
// int8 array's latency).
enum class Path { kDefault, kTernaryMac, kBase3, kSparse };
// The datapath (pe_units.h) a unit's work on `path` runs on.
Datapath datapath(Unit u, Path path);

// One use of a unit or port: held `busy` cycles, the result ready `latency` cycles after that.
struct UnitTime {
  std::uint64_t busy = 0;
  std::uint64_t latency = 0;
  std::uint64_t duration() const { return latency + busy; }
};

// One stage of a transfer: where (DRAM, or a level's ports in a direction), its busiest port's
// bytes and the cycles they hold that port.
struct Stage {
  Resource resource = Resource::dram();
  std::uint64_t bytes = 0;
  std::uint64_t cycles = 0;
};

// A transfer alone: its stages in path order and its path latency.
struct TransferTime {
  std::vector<Stage> stages;
  std::uint64_t latency = 0;
  std::uint64_t duration() const;  // latency + the longest stage
};

// Traffic of a tree collective at one level's links (level l: between level l's units and their
// parents), as LinkStats counts it.
struct CollectiveLevelTraffic {
  std::uint64_t down_sent = 0, down_delivered = 0, down_busiest = 0;
  std::uint64_t up_sent = 0, up_delivered = 0, up_busiest = 0;
};
enum class Collective { kBroadcast, kScatter, kGather, kReduce };

struct Roofline {
  std::uint64_t cycles = 0;
  std::string resource;                         // "mac", "dram", "L1B.down", ...
  std::map<std::string, std::uint64_t> bounds;  // every resource's bound
};

// What the machine can do per cycle and per second, summed over its units: the peaks a summary,
// a sweep's table and a roofline chart print.
struct Peaks {
  std::uint64_t int8_macs_per_cycle = 0;  // all PEs
  std::uint64_t dram_bytes_per_cycle = 0;
  // Per level: one parent port's rate and all parents' together, per direction.
  std::vector<std::uint64_t> port_down_bytes_per_cycle, port_up_bytes_per_cycle;
  std::vector<std::uint64_t> level_down_bytes_per_cycle, level_up_bytes_per_cycle;
  std::vector<std::uint64_t> latency_cycles;  // per level, its links'
  double cycles_per_second = 0;
};

class CostModel {
 public:
  explicit CostModel(const machine::MachineConfig& machine) : m_(machine) {}

  // A PE unit doing `work_per_pe` items (MACs, bytes, values).
  UnitTime unit(Unit u, std::uint64_t work_per_pe, Path path = Path::kDefault) const;
  // The rate and latency of a unit's datapath (items per cycle, cycles).
  std::pair<std::uint64_t, std::uint64_t> rate(Unit u, Path path = Path::kDefault) const;
  std::pair<std::uint64_t, std::uint64_t> rate(Datapath d) const;
  // The rate and latency of any resource (bytes per cycle for DRAM and ports; a unit's default path).
  std::pair<std::uint64_t, std::uint64_t> rate(Resource r) const;
  // A sparse walk's work in items (the sparse path's unit of work), by pe.sparse_mac's costs
  // (defaults when the machine has no such section: 1 per entry, 1 per segment, 0 per level step):
  // entry_items per stored entry and pass of the int8 MAC array over B's n columns
  // (ceil(n / pe.mac.int8_macs_per_cycle); 1 for a vector), segment_items per segment whose
  // positions it reads, and level_items[kind] per coordinate stepped through at a level of that
  // kind (visits: dense, compressed, singleton, n:m, as sim/sparse/walk.h counts them).
  std::uint64_t sparse_items(std::uint64_t entries, std::uint64_t segments,
                             const std::array<std::uint64_t, 4>& visits, std::uint64_t n) const;
  // The vector unit applying `op` to `values_per_pe` values in every PE (the closed form above; an
  // operation the machine does not price costs as a simple one: the program checker refuses it
  // first), and the lane-cycles (its work items) that takes.
  UnitTime vector(core::VectorOp op, std::uint64_t values_per_pe) const;
  std::uint64_t vector_items(core::VectorOp op, std::uint64_t values) const;
  // DRAM's port streaming `bytes`, and its access latency.
  UnitTime dram(std::uint64_t bytes) const;          // all channels together (bytes spread over them)
  UnitTime dram_channel(std::uint64_t bytes) const;  // one channel (the simple Dram target)
  // One port of `level`'s links carrying `bytes` in `direction`, and the level's link latency.
  UnitTime port(std::size_t level, Direction direction, std::uint64_t bytes) const;
  // What every load and store crosses between DRAM and a PE after its last stage: DRAM's latency
  // and every level's (docs/timing.md §8.2).
  std::uint64_t path_latency() const;
  // The machine's peak rates.
  Peaks peaks() const;

  // A load (down, from DRAM) or a store (up, to DRAM) by its layout's traffic plan, alone.
  TransferTime load(const layout::TrafficPlan& plan) const;
  TransferTime store(const layout::TrafficPlan& plan) const;

  // A collective at `level` (-1 = the board) moving `bytes` per PE block (reduce: int32 values × 4):
  // its traffic per level (empty above `level`) and its time alone.
  std::vector<CollectiveLevelTraffic> collective_traffic(Collective kind, int level,
                                                         std::uint64_t bytes) const;
  TransferTime collective(Collective kind, int level, std::uint64_t bytes) const;

  // A layout conversion alone (layout::plan_conversion): up the tree from the sources to the
  // common ancestors, then down to the destinations, cut-through over every level's busiest port in
  // each direction (the latencies of the levels it crosses, up and down), and the copies inside one
  // PE on the copy unit (spread evenly over the PEs). Zero when it moves nothing.
  TransferTime conversion(const layout::ConversionPlan& plan, std::uint64_t element_bytes) const;

  Roofline roofline(const Work& work) const;

  const machine::MachineConfig& machine() const { return m_; }

 private:
  TransferTime transfer(const layout::TrafficPlan& plan, Direction d) const;
  const machine::MachineConfig& m_;
};

}  // namespace treesim::timing
