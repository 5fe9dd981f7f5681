// The GEMM planner's estimate, shared by its plan search (gemm_plan.cpp) and its estimator
// (gemm_estimate.cpp).
#pragma once

#include "kernels/gemm/gemm.h"
#include "sim/machine/machine_config.h"
#include "sim/timing/cost_model.h"

namespace treesim::kernels {

// The analytic estimate of the program build_program emits for `plan`: the schedule's steps, fill
// and drain, by the cost model's closed forms. Throws when a tile layout does not bind.
// `before`: a transfer issued just before the program (a network's conversion of this layer's input)
// that shares the ports with its first loads: its stages add to the fill and to every resource's
// total.
// `a_load`: the time of one A tile's load when it is not a plain load of the tile layout (a
// convolution's windowed load: its DRAM reads, and with halos its patches and copy unit).
// Throws layout::LayoutError where a tile layout does not bind (estimate_plan returns it as a value).
double estimate_cycles(const QgemmProblem& problem, const QgemmPlan& plan, const machine::MachineConfig& m,
                       const timing::TransferTime* before = nullptr,
                       const timing::TransferTime* a_load = nullptr);

// The plan's estimate with every A tile a windowed convert of `a`, held in the LMs (the window over
// `tensor`, an NHWC shape of its elements): its first tile's conversion (program::window_conversion)
// timed by the cost model stands for every A load.
double estimate_with_a_in_lm(const QgemmProblem& problem, const QgemmPlan& plan, const LmTensor& a,
                             const program::Window& window, const std::vector<std::uint64_t>& tensor,
                             const machine::MachineConfig& m);

}  // namespace treesim::kernels
