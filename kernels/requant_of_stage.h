// The requant instruction of an output stage whose multipliers travel in the instruction (one, or one
// per column): its zero point, type, clamp and rounding as the stage says.
#pragma once

#include <cstdint>

#include "sim/numeric/requant.h"
#include "sim/program/instruction.h"

namespace treesim::kernels {

program::Requant requant_of_stage(const numeric::OutputStage& stage, std::uint64_t src, std::uint64_t dst,
                                  std::uint64_t rows, std::uint64_t cols);

}  // namespace treesim::kernels
