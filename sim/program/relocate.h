// Moving a program within the LMs: the same program with every LM address shifted, so that two
// programs run back to back (a graph's units) can sit in different parts of the LMs and the second's
// first loads need not wait for the first's last reads.
#pragma once

#include <cstdint>

#include "sim/program/checked_program.h"
#include "sim/program/instruction.h"

namespace treesim::program {

// Every LM byte offset of every instruction plus `offset` (DRAM is untouched).
Program relocate_lm(Program program, std::uint64_t offset);

// One past the highest LM byte the checked program reads or writes (0 when none).
std::uint64_t lm_extent(const CheckedProgram& checked);

}  // namespace treesim::program
