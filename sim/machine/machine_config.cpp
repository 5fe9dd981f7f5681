#include "sim/machine/machine_config.h"

namespace treesim::machine {

std::uint64_t MachineConfig::units_at(std::size_t index) const {
  std::uint64_t units = 1;
  for (std::size_t i = 0; i <= index && i < levels.size(); ++i) units *= levels[i].fanout;
  return units;
}

std::optional<std::size_t> MachineConfig::level_index(const std::string& level_name) const {
  for (std::size_t i = 0; i < levels.size(); ++i)
    if (levels[i].name == level_name) return i;
  return std::nullopt;
}

bool is_reserved_level_name(const std::string& name) { return name == "W" || name == "Time" || name == "B"; }

}  // namespace treesim::machine
