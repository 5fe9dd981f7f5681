#include "sim/machine/machine_config.h"

#include <stdexcept>

#include "sim/core/checked.h"

namespace treesim::machine {

std::optional<VectorOpCost> VectorConfig::cost(core::VectorOp op) const {
  if (auto it = ops.find(op); it != ops.end()) return it->second;
  if (core::needs_listed_cost(op)) return std::nullopt;
  return VectorOpCost{1, 0, false};
}

std::uint64_t MachineConfig::units_at(std::size_t index) const {
  std::uint64_t units = 1;
  for (std::size_t i = 0; i <= index && i < levels.size(); ++i) {
    const auto u = core::checked_mul(units, levels[i].fanout);
    // validate() refuses such a machine; reaching this is a caller that skipped it.
    if (!u)
      throw std::overflow_error("machine '" + name + "': the fan-outs overflow 64 bits (not validated)");
    units = *u;
  }
  return units;
}

std::optional<std::size_t> MachineConfig::level_index(const std::string& level_name) const {
  for (std::size_t i = 0; i < levels.size(); ++i)
    if (levels[i].name == level_name) return i;
  return std::nullopt;
}

const char* placement_name(DramPlacement p) {
  switch (p) {
    case DramPlacement::kLayout:
      return "layout";
    case DramPlacement::kSplit:
      return "split";
    case DramPlacement::kInterleave:
      break;
  }
  return "interleave";
}

bool is_reserved_level_name(const std::string& name) { return name == "W" || name == "Time" || name == "B"; }

}  // namespace treesim::machine
