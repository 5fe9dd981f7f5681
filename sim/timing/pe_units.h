// The PE's units and the datapaths their work runs on, as data. A unit is a row of unit_specs(),
// each of its datapaths a row of datapath_specs() with the machine-file section that gives its
// rate; the cost model's rates, the counters (Work::items), the roofline, the energy, the reports,
// the sweep columns and the traces loop over these rows. A unit whose `present` says the machine
// lacks it is left out of all of them, so a machine file without its section reports as before.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/machine/machine_config.h"

namespace treesim::timing {

// The PE's units, in pipeline order (the order reports list them in).
enum class Unit : std::uint8_t { kMac, kDptDecoder, kRequant, kCopy, kVector };
inline constexpr std::size_t kUnitCount = 5;

// The datapaths: what a unit's work runs on when it has more than one (the MAC unit's int8 array,
// its ternary path and its sparse walk; the decoder's DPT and base-3 datapaths), one per unit
// otherwise. Work::items counts each datapath's own work, none of it counted twice. The vector
// unit's items are lane-cycles: values × each operation's cycles per value.
enum class Datapath : std::uint8_t {
  kInt8Mac,
  kTernaryMac,
  kSparseWalk,
  kDpt,
  kBase3,
  kRequant,
  kCopy,
  kVector
};
inline constexpr std::size_t kDatapathCount = 8;

// Items per cycle and cycles of latency.
struct Rate {
  std::uint64_t per_cycle = 1;
  std::uint64_t latency = 0;
};

struct UnitSpec {
  Unit unit;
  const char* name;                           // reports, the roofline, sweep columns: "dpt_decoder"
  const char* trace_name;                     // traces, at the PE that holds it: "dpt"
  const char* work_name;                      // what its work counts: "macs", "bytes", "values"
  bool (*present)(const machine::PeConfig&);  // whether a machine has it
  // Its work's key in a report's `work` (docs/reports.md), for the units added after the report's
  // first four, whose keys are fixed there (macs, dpt_bytes, requant_values, copy_bytes, ...).
  const char* work_key;
};

struct DatapathSpec {
  Datapath path;
  Unit unit;
  Rate (*rate)(const machine::PeConfig&);  // from its machine-file section, or its documented default
};

const std::array<UnitSpec, kUnitCount>& unit_specs();
const std::array<DatapathSpec, kDatapathCount>& datapath_specs();
inline const UnitSpec& spec(Unit u) { return unit_specs()[static_cast<std::size_t>(u)]; }
inline const DatapathSpec& spec(Datapath d) { return datapath_specs()[static_cast<std::size_t>(d)]; }

const char* unit_name(Unit u);  // spec(u).name
bool has_unit(const machine::MachineConfig& m, Unit u);
// The units a machine has, in pipeline order.
std::vector<Unit> machine_units(const machine::MachineConfig& m);

}  // namespace treesim::timing
