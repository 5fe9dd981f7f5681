// A short name for one instruction of a program, as traces label its busy stretches: the kind, its
// index and its operand, without spaces (VCD string values cannot hold them):
//   load#0:A[0:64,0:32]   store#9:C[0:64,0:128]   mac#3:32x128x64 (m×n×k)   requant#7:64x128
//   dpt_decode#2:512B   copy#4:256B   broadcast#5:L1B:64B   reduce#6:MAB:128x4B
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sim/program/instruction.h"

namespace treesim::program {

std::string instr_label(const Program& program, std::size_t index,
                        const std::vector<std::string>& level_names);

}  // namespace treesim::program
