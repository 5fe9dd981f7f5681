// A network of GEMM layers as one program: planned by the chain planner (or through DRAM), placed in
// the LMs (chain_lm), described, built and reported.
#include "kernels/chain/network.h"

#include <fmt/format.h>

namespace treesim::kernels {
namespace {

const NetworkMapping* mapping_of(const Plan& plan) { return std::any_cast<NetworkMapping>(&plan.mapping); }

std::string describe_network(const std::vector<QgemmProblem>& net, const ChainLm& lm,
                             const std::vector<double>& layers, const machine::MachineConfig& m,
                             double estimated) {
  std::size_t on_chip = 0;
  for (const ChainBoundary& b : lm.boundaries) on_chip += b.kind != ChainBoundary::Kind::kDram;
  std::string out =
      fmt::format("plan: {} layers, {:.0f} cycles estimated; {} of {} activations stay in the LMs",
                  lm.plans.size(), estimated, on_chip, lm.boundaries.size());
  for (std::size_t i = 0; i < lm.plans.size(); ++i) {
    const QgemmProblem& p = net[i];
    const QgemmPlan& q = lm.plans[i];
    out += fmt::format("\nlayer {} ({}×{}×{}): {}, {:.0f} cycles estimated", i, p.m, p.n, p.k, describe(q, m),
                       layers[i]);
    out += fmt::format("\n  A {}", q.a_resident ? fmt::format("in the LMs at {}: {}", *q.a_resident,
                                                              resident_layout_a(p, q, m))
                                                : "from DRAM");
    out += fmt::format("\n  C {}", q.c_resident ? fmt::format("in the LMs at {}: {}", *q.c_resident,
                                                              resident_layout_c(p, q, m))
                                                : "to DRAM");
    if (i >= lm.boundaries.size()) continue;
    const ChainBoundary& b = lm.boundaries[i];
    out += fmt::format("\n  X{} → layer {}: {}", i + 1, i + 1, boundary_name(b.kind));
    if (b.time)
      out += fmt::format(", {} cycles alone (overlapping layer {}'s first loads)", b.time->duration(), i + 1);
    if (b.kind == ChainBoundary::Kind::kDram) out += " (" + b.why + ")";
    out += fmt::format("; LM {} of {} bytes in use there", lm.lm_at_boundary[i], m.lm_bytes());
  }
  return out;
}

}  // namespace

Plan network_plan(const std::vector<QgemmProblem>& net, const std::vector<QgemmPlan>& plans,
                  const machine::MachineConfig& m, const std::string& dram_reason,
                  const ConversionTimes* known) {
  NetworkMapping mapping{chain_lm(net, plans, m, !dram_reason.empty(), known)};
  if (!dram_reason.empty())
    for (ChainBoundary& b : mapping.lm.boundaries) b.why = dram_reason;
  Plan out;
  const std::vector<double> layers = layer_estimates(net, mapping.lm, m);
  for (double c : layers) out.estimated_cycles += c;
  out.description = describe_network(net, mapping.lm, layers, m, out.estimated_cycles);
  out.mapping = std::move(mapping);
  return out;
}

Result<Plan> plan_network(const std::vector<QgemmProblem>& net, const machine::MachineConfig& m,
                          bool via_dram, std::size_t candidates_per_layer) {
  if (via_dram) {
    std::vector<QgemmPlan> plans;
    for (std::size_t i = 0; i < net.size(); ++i) {
      try {
        plans.push_back(default_plan(net[i], m));
      } catch (const QgemmError& e) {
        return core::Error{fmt::format("layer {}", i), e.what()};
      }
    }
    return network_plan(net, plans, m, "--via-dram");
  }
  Result<GemmChainPlan> chain = plan_gemm_network(net, candidates_per_layer, m);
  if (!chain) return chain.errors();
  if (chain->on_chip()) return network_plan(net, chain->chosen(), m, "", &chain->conversion_times);
  return network_plan(net, chain->chosen(), m,
                      chain->dram_reason.empty()
                          ? fmt::format("faster by estimate: {:.0f} cycles against {:.0f} in the LMs",
                                        chain->via_dram_cycles, chain->placed_cycles)
                          : chain->dram_reason);
}

Result<Plan> network_plan_from_file(const std::string& path, const std::vector<QgemmProblem>& net,
                                    const machine::MachineConfig& m) {
  bool via_dram = false;
  Result<std::vector<QgemmPlan>> plans = chain_plans_from_file(path, net, m, &via_dram);
  if (!plans) return plans.errors();
  return network_plan(net, plans.value(), m, via_dram ? "the plan file says activations: dram" : "");
}

Result<program::Program> network_program(const std::vector<QgemmProblem>& net, const Plan& plan,
                                         const machine::MachineConfig& m) {
  const NetworkMapping* mapping = mapping_of(plan);
  if (!mapping) return core::Error{"", "the plan was not made for a network of layers"};
  try {
    return build_chain_program(net, mapping->lm, m);
  } catch (const std::exception& e) {
    return core::Error{"", e.what()};
  }
}

std::vector<Problem::Phase> network_phases(const std::vector<QgemmProblem>& net, const Plan& plan,
                                           const machine::MachineConfig& m) {
  const NetworkMapping* mapping = mapping_of(plan);
  if (!mapping) return {};
  std::vector<Problem::Phase> out;
  build_chain_program(net, mapping->lm, m, &out);  // again: cheap beside the run
  return out;
}

void add_network_report_fields(const Plan& plan, report::RunStats& stats) {
  const NetworkMapping* mapping = mapping_of(plan);
  if (!mapping) return;
  stats.info["plan"] = plan.description;
  stats.extra["estimated_cycles"] = static_cast<std::uint64_t>(plan.estimated_cycles + 0.5);
  std::uint64_t on_chip = 0;
  for (const ChainBoundary& b : mapping->lm.boundaries) {
    on_chip += b.kind != ChainBoundary::Kind::kDram;
    // Why the first activation through DRAM goes there (the planner's choice, or a full LM).
    if (b.kind == ChainBoundary::Kind::kDram && !b.why.empty() && !stats.info.count("dram_reason"))
      stats.info["dram_reason"] = b.why;
  }
  stats.extra["activations_in_lm"] = on_chip;
}

}  // namespace treesim::kernels
