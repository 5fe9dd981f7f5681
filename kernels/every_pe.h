// A layout prefix that spreads an axis over every PE: each level with more than one unit, outermost
// first ("2_L1B, 4_MAB, 4_PE, "), as elementwise kernels (relu, maxpool) split their rows.
#pragma once

#include <cstdint>
#include <string>

#include "sim/machine/machine_config.h"

namespace treesim::kernels {

struct EveryPe {
  std::string levels;       // sub-axes to put before the per-PE part of an axis
  std::uint64_t units = 1;  // their product: the PEs
};

EveryPe every_pe(const machine::MachineConfig& m);

}  // namespace treesim::kernels
