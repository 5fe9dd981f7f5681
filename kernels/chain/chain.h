// A chain of quantized GEMM layers — an MLP: layer i computes X[i+1] (M×w[i+1]) =
// relu(requant(X[i] (M×w[i]) · W[i] (w[i]×w[i+1]) + bias[i])), int8 throughout, each output the
// next layer's input.
//
// The whole-network plan: every layer has candidate plans (qgemm's, the best few by estimate with
// distinct operand layouts); converting layer i's output layout into layer i+1's input layout costs
// the conversion's cycles (layout::plan_conversion, timing::CostModel::conversion). The cheapest
// choice per layer is a shortest path (plan::solve_chain, Boost.Graph). No SystemC here.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kernels/gemm/gemm.h"
#include "kernels/kernel.h"
#include "sim/plan/chain_plan.h"
#include "sim/timing/cost_model.h"

namespace treesim::kernels {

struct GemmChainSpec {
  std::uint64_t m = 0;                   // rows of every activation (the batch)
  std::vector<std::uint64_t> widths;     // w[0] … w[L]: L layers
  std::size_t candidates_per_layer = 6;  // distinct layouts per layer the plan chooses among
  std::size_t layers() const { return widths.empty() ? 0 : widths.size() - 1; }
};

// A chain spec file (YAML: m, widths, optional candidates_per_layer); an error names the file, line
// and field.
Result<GemmChainSpec> read_chain_spec(const std::string& path);
// Its parsing half: a spec file's text, named `path` in messages.
Result<GemmChainSpec> parse_chain_spec(const std::string& text, const std::string& path);
// "128,256,64" → widths; an error names `option`.
Result<std::vector<std::uint64_t>> parse_widths(const std::string& text, const std::string& option);

// What a chain must satisfy before it is planned or run, as `run chain` and `tune chain` check it:
// every activation, weight and bias in the machine's DRAM (an error with `where` = `dram_where`,
// the option or file that sets the sizes), then each layer a GEMM the planner takes ("layer i").
core::Errors chain_spec_errors(const GemmChainSpec& spec, const machine::MachineConfig& machine,
                               const std::string& dram_where);

// Layer i's GEMM: M×w[i+1]×w[i], s8 operands with zero points 0, bias, a per-tensor multiplier,
// ReLU on an s8 output.
QgemmProblem chain_layer_problem(const GemmChainSpec& spec, std::size_t layer);

struct ChainLayerCandidate {
  QgemmPlan plan;                         // reshaped for its resident activations (resident_plan)
  std::string choice;                     // one line (gemm_tune's choice_text)
  std::string layout_in, layout_out;      // the whole A and C layouts (the plan file's)
  std::string resident_in, resident_out;  // where the activations stay in the LMs ("" for DRAM)
};

struct GemmChainPlan {
  std::vector<std::vector<ChainLayerCandidate>> candidates;  // per layer, by estimate
  // conversion[i][a][b]: layer i's candidate a output → layer i+1's candidate b input, in cycles.
  std::vector<std::vector<std::vector<double>>> conversion;
  plan::ChainChoice best;         // the shortest path
  plan::ChainChoice independent;  // every layer's best estimate alone (the default planner's)
  // Every activation through DRAM, each layer on the default planner's plan: today's estimate sum.
  std::vector<QgemmPlan> via_dram;
  double via_dram_cycles = 0;
  // The shortest path's plans as the run places them (chain_lm: a layer may leave room for its
  // neighbour's input), estimated as the run's plan is (layer_estimates).
  double placed_cycles = 0;
  // Every conversion the planner timed, by (from, to) resident layout (planning one is slow).
  std::map<std::pair<std::string, std::string>, timing::TransferTime> conversion_times;
  std::string dram_reason;  // when no layer plan can keep its activations on chip: why
  bool on_chip() const { return placed_cycles <= via_dram_cycles; }
  // The chosen layers' plans: the shortest path's, or the DRAM ones when those are faster.
  std::vector<QgemmPlan> chosen() const;
};

// The chain's layers as problems (chain_layer_problem of each).
std::vector<QgemmProblem> chain_problems(const GemmChainSpec& spec);

// Candidates, conversions and the shortest path; an error when a layer has no plan or a
// conversion cannot be planned.
Result<GemmChainPlan> plan_gemm_chain(const GemmChainSpec& spec, const machine::MachineConfig& machine);
// The same for any network of GEMM layers (int8 or ternary; layer i's C is layer i+1's A).
Result<GemmChainPlan> plan_gemm_network(const std::vector<QgemmProblem>& net,
                                        std::size_t candidates_per_layer,
                                        const machine::MachineConfig& machine);

// The plan file of the plan's choice (plan_file.h's chain format): the shortest path, or the DRAM
// plans (`activations: dram`) when those are faster.
std::string chain_plan_text(const GemmChainSpec& spec, const GemmChainPlan& plan,
                            const machine::MachineConfig& machine);

// The layers' plans from a chain plan file, checked against the spec's shapes and the machine;
// `via_dram` (when given) says whether the file sends the activations through DRAM.
Result<std::vector<QgemmPlan>> chain_plans_from_file(const std::string& path,
                                                     const std::vector<QgemmProblem>& net,
                                                     const machine::MachineConfig& machine,
                                                     bool* via_dram = nullptr);

struct ChainLm;

// One program for the whole network: every layer's program in turn, its tensors renamed X{i}, W{i},
// bias{i}, X{i+1}. An activation the LM plan keeps on chip is left in the LMs by layer i and read
// there by layer i+1, after a `convert` when their layouts differ; one through DRAM is stored and
// loaded (the scoreboard orders the loads of X{i} after the stores of the layer before).
// `phases` (when given) receives each layer's instructions ("layer0", …) and each conversion's
// ("layer0.convert", …: layer 0's output into layer 1's input), with the LM they keep in use.
// Ternary layers are tgemm's programs, their W in the problem's encoding (weight_encoding).
program::Program build_chain_program(const std::vector<QgemmProblem>& net, const ChainLm& lm,
                                     const machine::MachineConfig& machine,
                                     std::vector<Problem::Phase>* phases = nullptr);

}  // namespace treesim::kernels
