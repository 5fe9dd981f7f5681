// Small machines for layout tests, built in code (the note's configs, §7): toy = 1×1×1×4 PEs,
// board = 16×8×16×4, mn2 = 8×8×16×4 with 2 elements per LM address.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/machine/machine_config.h"

namespace treesim::layout::testing {

inline machine::MachineConfig make_machine(const std::vector<std::uint64_t>& fanouts, std::uint64_t lm_bytes,
                                           std::uint64_t words_per_address = 1,
                                           std::vector<std::string> names = {"L2B", "L1B", "MAB", "PE"}) {
  machine::MachineConfig m;
  m.name = "test";
  m.clock_ghz = 1;
  for (std::size_t i = 0; i < fanouts.size(); ++i) {
    machine::LevelConfig l;
    l.name = names[i];
    l.fanout = fanouts[i];
    l.memory_bytes = i + 1 == fanouts.size() ? lm_bytes : 0;
    l.down_bytes_per_cycle = l.up_bytes_per_cycle = 8;
    m.levels.push_back(l);
  }
  m.pe.words_per_address = words_per_address;
  return m;
}

inline machine::MachineConfig toy(std::uint64_t lm_bytes = 64 * 1024) {
  return make_machine({1, 1, 1, 4}, lm_bytes);
}
inline machine::MachineConfig board() { return make_machine({16, 8, 16, 4}, 32 * 1024); }
inline machine::MachineConfig mn2() { return make_machine({8, 8, 16, 4}, 32 * 1024, 2); }

}  // namespace treesim::layout::testing
