// A network of GEMM layers run as one program under the kernel contract — the chain kernel's and
// the MLP's: its plan (the chain planner's, a chain plan file's, or every activation through DRAM),
// the plan's description, its program, its phases and its report fields. The kernels own their
// tensors' contents and references; this owns how the layers are planned and joined.
#pragma once

#include <string>
#include <vector>

#include "kernels/chain/chain.h"
#include "kernels/chain/chain_lm.h"

namespace treesim::kernels {

struct NetworkMapping {
  ChainLm lm;
};

// The planner: with `via_dram`, every layer on its default plan and every activation through DRAM;
// else the chain planner's choice (its activations in the LMs where they fit, or through DRAM when
// that is faster by estimate, saying so).
Result<Plan> plan_network(const std::vector<QgemmProblem>& net, const machine::MachineConfig& machine,
                          bool via_dram, std::size_t candidates_per_layer = 6);

// The layers' plans placed (chain_lm) and described. `dram_reason`: why every activation goes
// through DRAM ("" keeps them in the LMs where they fit). `known`: conversions already timed.
Plan network_plan(const std::vector<QgemmProblem>& net, const std::vector<QgemmPlan>& plans,
                  const machine::MachineConfig& machine, const std::string& dram_reason = "",
                  const ConversionTimes* known = nullptr);

// A chain plan file's plans for `net` (each layer's m, n, k checked), placed as the file says.
Result<Plan> network_plan_from_file(const std::string& path, const std::vector<QgemmProblem>& net,
                                    const machine::MachineConfig& machine);

Result<program::Program> network_program(const std::vector<QgemmProblem>& net, const Plan& plan,
                                         const machine::MachineConfig& machine);
std::vector<Problem::Phase> network_phases(const std::vector<QgemmProblem>& net, const Plan& plan,
                                           const machine::MachineConfig& machine);
// info.plan, estimated_cycles and activations_in_lm.
void add_network_report_fields(const Plan& plan, report::RunStats& stats);

}  // namespace treesim::kernels
