// Tuning candidates of a GEMM (qgemm and tgemm share them): every plan of the planner's search,
// estimated, ranked and counted by why the others were pruned.
#pragma once

#include <functional>
#include <string>

#include "kernels/gemm/gemm.h"
#include "kernels/kernel.h"

namespace treesim::kernels {

// `to_plan` wraps a QgemmPlan as the kernel's Plan (its description and mapping).
Candidates gemm_candidates(const QgemmProblem& problem, const machine::MachineConfig& machine,
                           const Assignment& fixed, const std::function<Plan(const QgemmPlan&)>& to_plan,
                           TilingRange range = TilingRange::kComplete);

// One line: "L2B→M L1B→N MAB→K PE→K, C 64×64 in 2×1 passes, K 4×256".
std::string choice_text(const QgemmPlan& plan, const machine::MachineConfig& machine);

}  // namespace treesim::kernels
