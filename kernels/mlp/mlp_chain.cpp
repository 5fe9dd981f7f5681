#include "kernels/mlp/mlp_chain.h"

#include <regex>

#include "kernels/gemm/gemm.h"

namespace treesim::kernels::mlp {
namespace {

NetworkPlan layouts_of(const MlpModel& model, const GemmChainSpec& spec, const std::vector<QgemmPlan>& plans,
                       const machine::MachineConfig& m) {
  NetworkPlan out;
  for (std::size_t i = 0; i < spec.layers(); ++i) {
    const QgemmProblem p = chain_layer_problem(spec, i);
    out[model.layers[i].name] = {whole_layout_a(p, plans[i], m), whole_layout_b(p, plans[i], m),
                                 whole_layout_c(p, plans[i], m)};
  }
  return out;
}

}  // namespace

GemmChainSpec chain_spec(const MlpModel& model, std::uint64_t rows) {
  GemmChainSpec spec;
  spec.m = rows;
  spec.widths.push_back(model.features);
  for (const MlpLayer& l : model.layers) spec.widths.push_back(l.n);
  return spec;
}

Result<NetworkPlan> chain_network_plan(const MlpModel& model, std::uint64_t rows,
                                       const machine::MachineConfig& machine) {
  const GemmChainSpec spec = chain_spec(model, rows);
  Result<GemmChainPlan> plan = plan_gemm_chain(spec, machine);
  if (!plan) return plan.errors();
  std::vector<QgemmPlan> plans;
  for (std::size_t i = 0; i < spec.layers(); ++i)
    plans.push_back(plan->candidates[i][plan->best.candidate[i]].plan);
  return layouts_of(model, spec, plans, machine);
}

bool is_chain_plan_text(const std::string& text) {
  static const std::regex kChain(R"((^|\n)kernel:\s*"?chain"?\s*(#[^\n]*)?(\n|$))");
  return std::regex_search(text, kChain);
}

Result<NetworkPlan> chain_plan_file_layouts(const std::string& path, const MlpModel& model,
                                            std::uint64_t rows, const machine::MachineConfig& machine) {
  const GemmChainSpec spec = chain_spec(model, rows);
  Result<std::vector<QgemmPlan>> plans = chain_plans_from_file(path, chain_problems(spec), machine);
  if (!plans) return plans.errors();
  return layouts_of(model, spec, plans.value(), machine);
}

}  // namespace treesim::kernels::mlp
