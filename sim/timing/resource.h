// The shared resources of the timing model, as one typed value: DRAM's port, one level's parent
// ports in one direction, or one of the PE's units. The sequencer records what each instruction
// held, the planners total their estimates, the roofline names its bound and the trace writers name
// their signals by it; nothing else numbers resources.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/machine/machine_config.h"
#include "sim/timing/pe_units.h"

namespace treesim::timing {

enum class Direction : std::uint8_t { kDown, kUp };

class Resource {
 public:
  enum class Kind : std::uint8_t { kDram, kUnit, kPort };

  static constexpr Resource dram() { return Resource(Kind::kDram, 0, Direction::kDown, Unit::kMac); }
  static constexpr Resource unit(Unit u) { return Resource(Kind::kUnit, 0, Direction::kDown, u); }
  // The ports of level `level`'s links (between its units and their parents) in direction `d`.
  static constexpr Resource port(std::size_t level, Direction d) {
    return Resource(Kind::kPort, static_cast<std::uint32_t>(level), d, Unit::kMac);
  }

  Kind kind() const { return kind_; }
  bool is_port() const { return kind_ == Kind::kPort; }
  std::size_t level() const { return level_; }        // kPort
  Direction direction() const { return direction_; }  // kPort
  Unit pe_unit() const { return unit_; }              // kUnit
  bool moves_bytes() const { return kind_ != Kind::kUnit; }

  // A dense number for arrays: DRAM 0, the PE units 1..kUnitCount (pe_units.h's order), then each
  // level's down and up ports.
  std::size_t index() const;
  static Resource from_index(std::size_t index);
  // How many a machine with `levels` levels has.
  static std::size_t count(std::size_t levels) { return 1 + kUnitCount + 2 * levels; }
  // Every resource a machine has, in index order (no unit it lacks).
  static std::vector<Resource> all(const machine::MachineConfig& m);

  bool operator==(const Resource& o) const { return index() == o.index(); }
  bool operator!=(const Resource& o) const { return !(*this == o); }
  bool operator<(const Resource& o) const { return index() < o.index(); }

 private:
  constexpr Resource(Kind k, std::uint32_t level, Direction d, Unit u)
      : kind_(k), direction_(d), unit_(u), level_(level) {}
  Kind kind_;
  Direction direction_;
  Unit unit_;
  std::uint32_t level_;
};

// How reports and the roofline name it: "dram", "mac", "dpt_decoder", "L2B.down", ...
std::string name(Resource r, const machine::MachineConfig& m);
// How traces name it at the unit that holds it: "dram", "down", "up", or its unit's trace name.
const char* trace_name(Resource r);
// What its work counts: "bytes" (DRAM, ports), or its unit's work name ("macs", "values", ...).
const char* work_name(Resource r);

}  // namespace treesim::timing
