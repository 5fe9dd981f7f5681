// The qgemm planner's estimate, shared by its plan search (qgemm_plan.cpp) and its estimator
// (qgemm_estimate.cpp).
#pragma once

#include "kernels/qgemm/qgemm.h"
#include "sim/machine/machine_config.h"

namespace treesim::kernels {

// The analytic estimate of the program build_program emits for `plan`: the schedule's steps, fill
// and drain, by the cost model's closed forms. Throws when a tile layout does not bind.
double estimate_cycles(const QgemmProblem& problem, const QgemmPlan& plan, const machine::MachineConfig& m);

}  // namespace treesim::kernels
