// Placement by layout: on a machine with a DRAM channel per unit of its first level, each element
// of a tensor goes into the channel of the unit that the program's first load or store of it puts
// it in (replica 0's unit: a broadcast over that level is served from one channel). A layout that
// splits a tensor over the units then finds every unit's share in its own channel, whichever axis
// it splits, and the first level's links carry only what the layouts ask to move between units.
// Elements that no transfer places, or that a layout copies into every unit, are left to the map's
// equal pieces.
#pragma once

#include <vector>

#include "models/dram_map.h"
#include "sim/program/checked_program.h"

namespace treesim::models {

// The program's tensors and, by layout on a machine with channels, the channels of their elements.
std::vector<TensorPlacement> place_tensors(const machine::MachineConfig& machine,
                                           const program::Program& program,
                                           const program::CheckedProgram& checked);

}  // namespace treesim::models
