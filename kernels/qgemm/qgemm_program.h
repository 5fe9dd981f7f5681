// The qgemm program: kernels/gemm's schedule with B loaded as int8 (its B path).
#pragma once

#include "kernels/gemm/gemm.h"

namespace treesim::kernels {

// The program: tensors A (M×K), B (K×N), C (M×N, out dtype), and when used bias, multiplier and
// shift (N int32 each); C holds the result after the run.
program::Program build_program(const QgemmProblem& problem, const QgemmPlan& plan,
                               const machine::MachineConfig& machine, const GemmOperands& operands = {});

}  // namespace treesim::kernels
