// Requant results that no instruction reads. Every PE requantizes in lock step, but a K-split GEMM
// reduces its partial sums into one PE per group, and only that PE's results are stored: the other
// PEs requantize their own partial sums, and the next pass overwrites those results unread
// (sa1024's 1024³ qgemm: 31 of its 32 PEs, 31 M of 32 M values). Their bytes are never observed
// (a run's results are what stores bring back to DRAM), so the functional model may skip them;
// the timing model still charges every PE's requant unit.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/program/checked_program.h"
#include "sim/program/instruction.h"

namespace treesim::host {

// For each instruction: empty, or for a requant, per PE, whether every later instruction leaves
// the requant's output bytes alone in that PE or overwrites all of them before reading any (up to
// the program's end). Conservative: an instruction whose effect on a PE is not known exactly
// (a load, a collective writing into the bytes, a partial overwrite) keeps them live.
std::vector<std::vector<bool>> dead_requant_outputs(const program::Program& program,
                                                    const program::CheckedProgram& checked,
                                                    std::uint64_t pes);

}  // namespace treesim::host
