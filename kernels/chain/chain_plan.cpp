// The chain's candidates, conversions and shortest path, its plan file and its one program.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <exception>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "kernels/chain/chain.h"
#include "kernels/chain/chain_lm.h"
#include "kernels/gemm/gemm_estimate.h"
#include "kernels/gemm/gemm_tune.h"
#include "kernels/gemm/plan_file.h"
#include "kernels/qgemm/qgemm_kernel.h"
#include "kernels/qgemm/qgemm_program.h"
#include "kernels/tgemm/tgemm.h"
#include "sim/layout/bound_layout.h"
#include "sim/layout/convert.h"
#include "sim/layout/parse.h"
#include "sim/numeric/fixed_point.h"
#include "sim/timing/cost_model.h"

namespace treesim::kernels {
namespace {

// How many plans by plain estimate a chain layer's vertices are chosen from, per vertex. Multi-pass
// plans, cheap by plain estimate (their stores overlap), can fill the first few and reshape badly
// with resident activations: with 8, the die MLP's fc3 lost its best plan (10.8 → 11.0 cycles per
// image once ragged blocks' padding left the MACs); 16 keeps it (planning time the same, 0.4 s).
constexpr std::size_t kScannedPerVertex = 16;

// A whole activation need not fit the LM (the kernels stream tiles of it): bound without the LM's
// capacity check, as qgemm checks user layouts.
layout::BoundLayout bind_whole(const std::string& text, std::uint64_t rows, std::uint64_t cols,
                               const machine::MachineConfig& m) {
  return layout::bind_or_throw(layout::parse_layout_or_throw(text, m), {rows, cols}, m, 1,
                               layout::LmCapacity::kUnchecked);
}

}  // namespace

QgemmProblem chain_layer_problem(const GemmChainSpec& spec, std::size_t layer) {
  QgemmProblem p;
  p.m = spec.m, p.k = spec.widths[layer], p.n = spec.widths[layer + 1];
  p.out.out_dtype = core::DType::kInt8;
  p.out.out_zero_point = 0;
  p.out.act_min = 0;  // ReLU
  p.out.act_max = 127;
  p.out.multipliers.assign(1, numeric::quantize_multiplier(seeded_scale(p.k)));
  p.has_bias = true;
  return p;
}

std::vector<QgemmProblem> chain_problems(const GemmChainSpec& spec) {
  std::vector<QgemmProblem> out;
  for (std::size_t i = 0; i < spec.layers(); ++i) out.push_back(chain_layer_problem(spec, i));
  return out;
}

Result<GemmChainPlan> plan_gemm_chain(const GemmChainSpec& spec, const machine::MachineConfig& m) {
  return plan_gemm_network(chain_problems(spec), spec.candidates_per_layer, m);
}

Result<GemmChainPlan> plan_gemm_network(const std::vector<QgemmProblem>& net,
                                        std::size_t candidates_per_layer, const machine::MachineConfig& m) {
  GemmChainPlan out;
  const std::size_t layers = net.size();
  for (std::size_t i = 0; i < layers; ++i) {
    const QgemmProblem& p = net[i];
    Candidates all = gemm_candidates(
        p, m, {},
        [](const QgemmPlan& q) {
          Plan plan;
          plan.estimated_cycles = q.estimated_cycles;
          plan.mapping = q;
          return plan;
        },
        TilingRange::kUnshared);
    // Through DRAM, each layer takes the default plan (shared levels too: what --via-dram runs), the
    // better of the unshared search's best and the shared levels' (the unshared on a tie, as
    // default_plan orders them); with none, the planner says why.
    try {
      const PlanSearch shared = search_plans(p, m, {}, false, TilingRange::kSharedOnly);
      const QgemmPlan* unshared =
          all.ranked.empty() ? nullptr : &std::any_cast<const QgemmPlan&>(all.ranked.front().plan.mapping);
      if (shared.best && (!unshared || shared.best->estimated_cycles < unshared->estimated_cycles))
        out.via_dram.push_back(*shared.best);
      else
        out.via_dram.push_back(unshared ? *unshared : default_plan(p, m));
      out.via_dram_cycles += out.via_dram.back().estimated_cycles;
    } catch (const QgemmError& e) {
      return core::Error{"", fmt::format("layer {} ({}×{}×{}): {}", i, p.m, p.n, p.k, e.what())};
    }
    // A vertex is a (layer, layouts) pair: the best estimate of each distinct pair of layouts, with
    // its activations resident (the first layer's input and the last one's output are in DRAM).
    // Reshaping changes estimates (resident A needs no loads, the regions take LM from the buffers):
    // the best of a pair is not always its first plan by plain estimate, so the pairs are taken
    // from a few times as many plans as there are vertices, each the best of its own.
    std::vector<ChainLayerCandidate> chosen;
    std::map<std::pair<std::string, std::string>, std::size_t> seen;
    const std::size_t scanned = std::min(all.ranked.size(), kScannedPerVertex * candidates_per_layer);
    for (std::size_t j = 0; j < all.ranked.size() && (j < scanned || chosen.size() < candidates_per_layer);
         ++j) {
      const Candidate& c = all.ranked[j];
      const QgemmPlan& q = std::any_cast<const QgemmPlan&>(c.plan.mapping);
      auto resident = resident_plan(p, q, m, i > 0, i + 1 < layers);
      if (!std::holds_alternative<QgemmPlan>(resident)) continue;
      const QgemmPlan& r = std::get<QgemmPlan>(resident);
      ChainLayerCandidate lc{r,
                             c.choice,
                             whole_layout_a(p, q, m),
                             whole_layout_c(p, q, m),
                             r.a_resident ? resident_layout_a(p, r, m) : "",
                             r.c_resident ? resident_layout_c(p, r, m) : ""};
      auto [at, fresh] = seen.emplace(std::pair{lc.resident_in, lc.resident_out}, chosen.size());
      if (fresh)
        chosen.push_back(std::move(lc));
      else if (r.estimated_cycles < chosen[at->second].plan.estimated_cycles)
        chosen[at->second] = std::move(lc);
    }
    std::stable_sort(chosen.begin(), chosen.end(),
                     [](const ChainLayerCandidate& x, const ChainLayerCandidate& y) {
                       return x.plan.estimated_cycles < y.plan.estimated_cycles;
                     });
    if (chosen.size() > candidates_per_layer) chosen.resize(candidates_per_layer);
    if (chosen.empty()) {
      // Nothing stays in the LMs: the chain goes through DRAM (its default plans), and says why.
      const QgemmPlan& q = out.via_dram.back();
      auto r = resident_plan(p, q, m, i > 0, i + 1 < layers);
      out.dram_reason =
          fmt::format("layer {} ({}×{}×{}) has no plan that keeps its activations in the LM{}", i, p.m, p.n,
                      p.k, std::holds_alternative<Rejection>(r) ? ": " + std::get<Rejection>(r).message : "");
      chosen.push_back({q, "", whole_layout_a(p, q, m), whole_layout_c(p, q, m), "", ""});
    }
    out.candidates.push_back(std::move(chosen));
  }
  if (!out.dram_reason.empty()) {  // no path on chip
    out.placed_cycles = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < layers; ++i) {
      out.best.candidate.push_back(0);
      out.best.total += out.candidates[i][0].plan.estimated_cycles;
      if (i + 1 < layers) out.best.conversion.push_back(0), out.conversion.push_back({{0.0}});
    }
    out.independent = out.best;
    return out;
  }
  std::vector<std::vector<double>> costs;
  for (const auto& layer : out.candidates) {
    auto& c = costs.emplace_back();
    for (const auto& cand : layer) c.push_back(cand.plan.estimated_cycles);
  }
  // What converting layer i's candidate a into layer i+1's candidate b adds to b: the conversion
  // shares the ports with b's first loads. Planning the conversions is the slow part on a big
  // machine: each distinct pair of layouts is planned once, the pairs side by side on the host's
  // cores (plan_conversion reads only its two bound layouts).
  const timing::CostModel cost(m);
  try {
    std::map<std::string, layout::BoundLayout> bound;  // by layout text (an activation's shape is fixed)
    auto& planned = out.conversion_times;
    // Plans the conversions of `edges` (layer, from, to) not planned yet, side by side.
    auto plan_edges = [&](const std::vector<std::array<std::size_t, 3>>& edges) {
      std::vector<std::pair<std::string, std::string>> todo;
      for (const auto& [i, a, b] : edges) {
        const std::string &from = out.candidates[i][a].resident_out,
                          &to = out.candidates[i + 1][b].resident_in;
        if (from == to || planned.count({from, to})) continue;  // read in place, or known
        for (const std::string* text : {&from, &to})
          if (!bound.count(*text)) bound.emplace(*text, bind_whole(*text, net[i + 1].m, net[i + 1].k, m));
        if (std::find(todo.begin(), todo.end(), std::make_pair(from, to)) == todo.end())
          todo.emplace_back(from, to);
      }
      std::vector<timing::TransferTime> times(todo.size());
      std::vector<std::exception_ptr> failed(todo.size());
      std::atomic<std::size_t> next{0};
      auto work = [&] {
        for (std::size_t k; (k = next++) < todo.size();) {
          try {
            times[k] = cost.conversion(
                layout::plan_conversion(bound.at(todo[k].first), bound.at(todo[k].second)), 1);
          } catch (...) {
            failed[k] = std::current_exception();
          }
        }
      };
      const std::size_t workers =
          std::min<std::size_t>({todo.size(), std::max(1u, std::thread::hardware_concurrency()), 8});
      std::vector<std::thread> pool;
      for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(work);
      work();
      for (std::thread& t : pool) t.join();
      for (const std::exception_ptr& e : failed)
        if (e) std::rethrow_exception(e);
      for (std::size_t k = 0; k < todo.size(); ++k) planned.emplace(todo[k], times[k]);
    };
    auto price = [&](std::size_t i, std::size_t a, std::size_t b) {
      const ChainLayerCandidate &from = out.candidates[i][a], &next = out.candidates[i + 1][b];
      if (from.resident_out == next.resident_in) return 0.0;
      const timing::TransferTime& t = planned.at({from.resident_out, next.resident_in});
      return estimate_cycles(net[i + 1], next.plan, m, &t) - next.plan.estimated_cycles;
    };
    // First the default planner's path (candidate 0 everywhere); then only the edges of paths that
    // could beat it: every edge costs at least 0, so a path through an edge costs at least its two
    // layers and the cheapest candidate of every other layer.
    std::vector<std::array<std::size_t, 3>> edges;
    for (std::size_t i = 0; i + 1 < layers; ++i) edges.push_back({i, 0, 0});
    plan_edges(edges);
    double bound_total = 0;
    for (std::size_t i = 0; i < layers; ++i)
      bound_total += costs[i][0] + (i + 1 < layers ? price(i, 0, 0) : 0);
    double cheapest = 0;
    std::vector<double> least(layers);
    for (std::size_t i = 0; i < layers; ++i)
      cheapest += least[i] = *std::min_element(costs[i].begin(), costs[i].end());
    auto worth = [&](std::size_t i, std::size_t a, std::size_t b) {
      return cheapest - least[i] - least[i + 1] + costs[i][a] + costs[i + 1][b] < bound_total;
    };
    edges.clear();
    for (std::size_t i = 0; i + 1 < layers; ++i)
      for (std::size_t a = 0; a < costs[i].size(); ++a)
        for (std::size_t b = 0; b < costs[i + 1].size(); ++b)
          if (worth(i, a, b)) edges.push_back({i, a, b});
    plan_edges(edges);
    constexpr double kNever = 1e18;  // an edge no path under the default's cost takes
    for (std::size_t i = 0; i + 1 < layers; ++i) {
      auto& matrix = out.conversion.emplace_back();
      for (std::size_t a = 0; a < costs[i].size(); ++a) {
        auto& row = matrix.emplace_back();
        for (std::size_t b = 0; b < costs[i + 1].size(); ++b)
          row.push_back((a == 0 && b == 0) || worth(i, a, b) ? price(i, a, b) : kNever);
      }
    }
  } catch (const std::exception& e) {
    return core::Error{"", fmt::format("a conversion between the layers cannot be planned: {}", e.what())};
  }
  auto conversion = [&](std::size_t i, std::size_t a, std::size_t b) { return out.conversion[i][a][b]; };
  out.best = plan::solve_chain(costs, conversion);
  std::vector<std::vector<double>> firsts;
  for (const auto& c : costs) firsts.push_back({c.front()});
  // The default planner's choice (each layer's best estimate, candidate 0), priced with its conversions.
  out.independent = plan::solve_chain(firsts, conversion);
  std::vector<QgemmPlan> path;
  for (std::size_t i = 0; i < layers; ++i) path.push_back(out.candidates[i][out.best.candidate[i]].plan);
  try {
    for (double c : layer_estimates(net, chain_lm(net, path, m, false, &out.conversion_times), m))
      out.placed_cycles += c;
  } catch (const std::exception& e) {
    return core::Error{"", fmt::format("the chain's plan cannot be placed: {}", e.what())};
  }
  return out;
}

std::vector<QgemmPlan> GemmChainPlan::chosen() const {
  if (!on_chip()) return via_dram;
  std::vector<QgemmPlan> plans;
  for (std::size_t i = 0; i < candidates.size(); ++i) plans.push_back(candidates[i][best.candidate[i]].plan);
  return plans;
}

std::string chain_plan_text(const GemmChainSpec& spec, const GemmChainPlan& plan,
                            const machine::MachineConfig& m) {
  const std::vector<QgemmPlan> plans = plan.chosen();
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < spec.layers(); ++i) {
    const QgemmPlan& q = plans[i];
    const QgemmProblem p = chain_layer_problem(spec, i);
    GemmPlanFile f{"qgemm", m.name, p.m, p.n, p.k, q.assignment, q.tiling};
    texts.push_back(plan_file_text(
        f, q, m, "A: \"" + whole_layout_a(p, q, m) + "\"\nC: \"" + whole_layout_c(p, q, m) + "\"",
        /*header=*/false));
  }
  std::string widths;
  for (auto w : spec.widths) widths += (widths.empty() ? "" : ",") + std::to_string(w);
  return chain_plan_file_text(
      m.name, texts, plan.on_chip() ? plan.placed_cycles : plan.via_dram_cycles,
      fmt::format("treesim chain plan: m {}, widths {} on {} (treesim run chain --plan-file FILE)", spec.m,
                  widths, m.name),
      !plan.on_chip());
}

Result<std::vector<QgemmPlan>> chain_plans_from_file(const std::string& path,
                                                     const std::vector<QgemmProblem>& net,
                                                     const machine::MachineConfig& m, bool* via_dram) {
  Result<GemmChainPlanFile> read = read_chain_plan_file(path, m);
  if (!read) return read.errors();
  const GemmChainPlanFile& f = read.value();
  if (via_dram) *via_dram = f.via_dram;
  if (f.kernel != "chain") return core::Error{path, fmt::format("the plan is for {}, not chain", f.kernel)};
  if (f.machine != m.name)
    return core::Error{path, fmt::format("the plan is for machine {}, not {}", f.machine, m.name)};
  if (f.layers.size() != net.size())
    return core::Error{path,
                       fmt::format("the plan has {} layers, the chain {}", f.layers.size(), net.size())};
  std::vector<QgemmPlan> plans;
  for (std::size_t i = 0; i < f.layers.size(); ++i) {
    Result<QgemmPlan> p = plan_for(f.layers[i], net[i], m, fmt::format("{}: layer {}", path, i));
    if (!p) return p.errors();
    plans.push_back(std::move(p.value()));
  }
  return plans;
}

program::Program build_chain_program(const std::vector<QgemmProblem>& net, const ChainLm& lm,
                                     const machine::MachineConfig& m, std::vector<Problem::Phase>* phases) {
  program::Program out;
  for (std::size_t i = 0; i < net.size(); ++i) {
    const std::size_t first = out.instrs.size();
    program::Program layer = net[i].ternary
                                 ? build_tgemm_program(net[i], lm.plans[i], m, weight_encoding(net[i]))
                                 : build_program(net[i], lm.plans[i], m);
    auto rename = [&](const std::string& name) {
      if (name == "A") return fmt::format("X{}", i);
      if (name == "B" || name == "W") return fmt::format("W{}", i);
      if (name == "C") return fmt::format("X{}", i + 1);
      return fmt::format("{}{}", name, i);
    };
    for (program::TensorDecl t : layer.tensors) {
      t.name = rename(t.name);
      if (!out.find_tensor(t.name)) out.tensors.push_back(std::move(t));
    }
    for (program::Instr& instr : layer.instrs) {
      if (auto* l = std::get_if<program::Load>(&instr)) l->tensor = rename(l->tensor);
      if (auto* s = std::get_if<program::Store>(&instr)) s->tensor = rename(s->tensor);
      out.instrs.push_back(std::move(instr));
    }
    if (phases) phases->push_back({fmt::format("layer{}", i), first, out.instrs.size(), lm.lm_in_use[i]});
    if (i < lm.boundaries.size() && lm.boundaries[i].kind == ChainBoundary::Kind::kConvert) {
      const ChainBoundary& b = lm.boundaries[i];
      program::Convert c;
      c.tensor = fmt::format("X{}", i + 1);
      c.from = layout::parse_layout_or_throw(b.from, m);
      c.to = layout::parse_layout_or_throw(b.to, m);
      c.src = b.src, c.dst = b.dst;
      c.pad = net[i + 1].a_zero;  // padded K terms add (Z − Z)·w = 0
      out.instrs.emplace_back(std::move(c));
      if (phases)
        phases->push_back({fmt::format("layer{}.convert", i), out.instrs.size() - 1, out.instrs.size(),
                           lm.lm_at_boundary[i]});
    }
  }
  return out;
}

}  // namespace treesim::kernels
