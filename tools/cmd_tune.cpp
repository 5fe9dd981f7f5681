// `treesim tune KERNEL`: every candidate plan of a tunable kernel ranked by the analytic estimate,
// the best --budget of them simulated (timing only), and a ranked table of what the simulation
// says; --out writes the fastest as a plan file for `treesim run KERNEL --plan-file`.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "kernels/chain/chain.h"
#include "kernels/registry.h"
#include "models/simulation.h"
#include "sim/core/echo.h"
#include "sim/report/report.h"
#include "tools/cli.h"
#include "tools/kernel_options.h"
#include "tools/output_set.h"
#include "tools/session/run_problem.h"

namespace treesim::tools {
namespace {

struct TuneCommand {
  const kernels::Kernel* kernel = nullptr;
  std::string machine;
  std::vector<BoundOption> bound;
  std::uint64_t budget = 8;
  std::string out_path;
  bool json = false;
};

// One simulated candidate.
struct Tried {
  std::size_t by_estimate = 0;  // its place in the estimate's ranking, from 0
  report::Report report;
};

// "12.3M": bytes in a narrow column.
std::string short_bytes(std::uint64_t b) {
  if (b < 10000) return std::to_string(b);
  const char* units[] = {"k", "M", "G", "T"};
  double v = static_cast<double>(b);
  int u = -1;
  while (v >= 1000 && u < 3) v /= 1000, ++u;
  return fmt::format("{:.{}f}{}", v, v < 100 ? 1 : 0, units[u]);
}

double error_pct(double estimated, std::uint64_t simulated) {
  return simulated == 0
             ? 0
             : 100.0 * (estimated - static_cast<double>(simulated)) / static_cast<double>(simulated);
}

double mac_roofline_pct(const report::Report& r) {
  auto it = r.roofline.bounds.find("mac");
  return it == r.roofline.bounds.end() || r.cycles == 0
             ? 0
             : 100.0 * static_cast<double>(it->second) / static_cast<double>(r.cycles);
}

std::string table(const machine::MachineConfig& machine, const kernels::Candidates& c,
                  const std::vector<Tried>& tried) {
  std::vector<std::string> head{"rank", "plan", "estimated", "simulated", "error", "bound", "bottleneck"};
  head.push_back("DRAM rd");
  for (const auto& level : machine.levels) head.push_back(level.name + " down");
  head.push_back("LM B");
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < tried.size(); ++i) {
    const kernels::Candidate& cand = c.ranked[tried[i].by_estimate];
    const report::Report& r = tried[i].report;
    std::vector<std::string> row{std::to_string(i + 1),
                                 cand.choice,
                                 fmt::format("{:.0f}", cand.plan.estimated_cycles),
                                 std::to_string(r.cycles),
                                 fmt::format("{:+.1f}%", error_pct(cand.plan.estimated_cycles, r.cycles)),
                                 std::to_string(r.roofline.cycles),
                                 r.roofline.resource,
                                 short_bytes(r.work.dram_read_bytes)};
    for (std::size_t l = 0; l < machine.levels.size(); ++l)
      row.push_back(l < r.levels.size() ? short_bytes(r.levels[l].traffic.down_sent_bytes) : "-");
    row.push_back(std::to_string(cand.lm_bytes));
    rows.push_back(std::move(row));
  }
  std::vector<std::size_t> width(head.size());
  for (std::size_t i = 0; i < head.size(); ++i) width[i] = head[i].size();
  for (const auto& row : rows)
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i) s += "  ";
      s += i == 1 ? fmt::format("{:<{}}", cells[i], width[i]) : fmt::format("{:>{}}", cells[i], width[i]);
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s + "\n";
  };
  std::string out = line(head);
  for (const auto& row : rows) out += line(row);
  return out;
}

std::string pruned_text(const kernels::Candidates& c) {
  std::uint64_t total = 0;
  std::string why;
  for (const auto& [reason, count] : c.pruned) {
    total += count;
    why += fmt::format("{}{} {}", why.empty() ? "" : ", ", count, reason);
  }
  return total == 0 ? "none pruned" : fmt::format("{} pruned ({})", total, why);
}

nlohmann::json to_json(const machine::MachineConfig& machine, const kernels::Kernel& kernel,
                       const kernels::Candidates& c, const std::vector<Tried>& tried) {
  nlohmann::json j;
  j["kernel"] = kernel.name;
  j["machine"] = machine.name;
  j["enumerated"] = c.enumerated;
  j["estimated"] = c.ranked.size();
  j["pruned"] = nlohmann::json::object();
  for (const auto& [reason, count] : c.pruned) j["pruned"][reason] = count;
  j["simulated"] = nlohmann::json::array();
  for (std::size_t i = 0; i < tried.size(); ++i) {
    const kernels::Candidate& cand = c.ranked[tried[i].by_estimate];
    const report::Report& r = tried[i].report;
    nlohmann::json t;
    t["rank"] = i + 1;
    t["estimate_rank"] = tried[i].by_estimate + 1;
    t["plan"] = cand.choice;
    t["description"] = cand.plan.description;
    t["estimated_cycles"] = cand.plan.estimated_cycles;
    t["simulated_cycles"] = r.cycles;
    t["estimate_error_pct"] = error_pct(cand.plan.estimated_cycles, r.cycles);
    t["roofline_cycles"] = r.roofline.cycles;
    t["bottleneck"] = r.roofline.resource;
    t["mac_roofline_pct"] = mac_roofline_pct(r);
    t["dram_read_bytes"] = r.work.dram_read_bytes;
    t["dram_write_bytes"] = r.work.dram_write_bytes;
    for (const auto& level : r.levels) {
      t["down_sent_bytes"][level.name] = level.traffic.down_sent_bytes;
      t["up_sent_bytes"][level.name] = level.traffic.up_sent_bytes;
    }
    t["lm_bytes"] = cand.lm_bytes;
    j["simulated"].push_back(t);
  }
  return j;
}

void tune(const TuneCommand& c) {
  const kernels::Kernel& kernel = *c.kernel;
  OutputSet files;
  if (!c.out_path.empty()) files.stage(c.out_path, "--out");
  const machine::MachineConfig machine = load_machine_or_throw(c.machine);
  const kernels::Options options =
      take(kernels::parse_options(kernel.options, given_options(kernel, c.bound)));
  std::unique_ptr<kernels::Problem> problem = take(kernel.make_problem(options, machine));
  if (core::Errors e = problem->check(machine); !e.empty()) throw CliError(first_error(e));
  const kernels::Candidates cands = take(problem->candidates(machine));
  // The best --budget by estimate, simulated timing only on one elaboration.
  models::Simulation sim(machine);
  session::RunOptions run;
  run.kernel = kernel.name;
  run.simulation.functional = false;
  run.simulation.kernel = kernel.name;
  std::vector<Tried> tried;
  const std::size_t n = std::min<std::size_t>(c.budget, cands.ranked.size());
  for (std::size_t i = 0; i < n; ++i)
    tried.push_back({i, take(session::run_problem(*problem, cands.ranked[i].plan, sim, run)).report});
  // The default planner's plan is simulated too when the budget left it out (conv2d's ranks its
  // plans by more than the search did), so that the best is never slower than the default.
  // (A sparse kernel's options may name an encoding that cannot store the matrix: its plan is then
  // no candidate, and the tuner says why it cannot run.)
  const kernels::Result<kernels::Plan> plain = problem->plan(machine);
  std::optional<std::size_t> default_estimate;
  for (std::size_t i = 0; plain && i < cands.ranked.size() && !default_estimate; ++i)
    if (cands.ranked[i].plan.description == plain.value().description) default_estimate = i;
  if (default_estimate && *default_estimate >= n)
    tried.push_back(
        {*default_estimate, take(session::run_problem(*problem, plain.value(), sim, run)).report});
  // Ranked by simulated cycles; on a tie the better estimate first.
  std::stable_sort(tried.begin(), tried.end(),
                   [](const Tried& a, const Tried& b) { return a.report.cycles < b.report.cycles; });
  const Tried& best = tried.front();
  if (c.json) {
    nlohmann::json j = to_json(machine, kernel, cands, tried);
    if (!c.out_path.empty()) j["out"] = c.out_path;
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << fmt::format(
        "tune {} on {}: {} candidates, {}, {} estimated; the best {} by estimate simulated (timing only)\n",
        kernel.name, machine.name, cands.enumerated, pruned_text(cands), cands.ranked.size(), n);
    std::cout << table(machine, cands, tried);
    std::string where;
    for (std::size_t i = 0; i < tried.size(); ++i)
      if (default_estimate && tried[i].by_estimate == *default_estimate)
        where = fmt::format("(estimate rank {}) is rank {} at {} cycles", *default_estimate + 1, i + 1,
                            tried[i].report.cycles);
    if (where.empty() && !plain)
      where = "cannot run: " + first_error(plain.errors());
    else if (where.empty())
      where = fmt::format("is not among the candidates: it takes {} cycles",
                          take(session::run_problem(*problem, plain.value(), sim, run)).report.cycles);
    std::cout << fmt::format("best: {} cycles, {:.1f}% of the MAC roofline; the default planner's plan {}\n",
                             best.report.cycles, mac_roofline_pct(best.report), where);
    std::cout << cands.ranked[best.by_estimate].plan.description << "\n";
  }
  if (!c.out_path.empty()) {
    files.write(c.out_path, take(problem->plan_file(cands.ranked[best.by_estimate].plan, machine)), "--out");
    if (!c.json) std::cout << fmt::format("wrote {}\n", c.out_path);
  }
  files.commit();
}

void add_tune_kernel(CLI::App& tune_cmd, const kernels::Kernel& kernel) {
  auto* cmd = tune_cmd.add_subcommand(kernel.name, "Tune " + kernel.name + "'s plan: " + kernel.summary);
  auto c = std::make_shared<TuneCommand>();
  c->kernel = &kernel;
  cmd->add_option("--machine", c->machine, "Machine file (YAML)")->required();
  bind_kernel_options(*cmd, kernel, c->bound);
  cmd->add_option("--budget", c->budget,
                  "Simulate this many of the best candidates by estimate (timing only)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1000}))
      ->default_str("8");
  cmd->add_option("--out", c->out_path, "Write the fastest plan to this plan file (YAML)")->type_name("FILE");
  cmd->add_flag("--json", c->json, "Print JSON instead of the table");
  cmd->callback([c] { tune(*c); });
}

struct ChainCommand {
  std::string spec, machine, out_path;
  std::uint64_t candidates = 0;  // 0: the spec's
  bool json = false;
};

void tune_chain(const ChainCommand& c) {
  OutputSet files;
  if (!c.out_path.empty()) files.stage(c.out_path, "--out");
  const machine::MachineConfig machine = load_machine_or_throw(c.machine);
  kernels::GemmChainSpec spec = take(kernels::read_chain_spec(c.spec));
  if (c.candidates > 0) spec.candidates_per_layer = c.candidates;
  // What `run chain` refuses, refused here too: a plan for a chain that cannot run answers nothing.
  if (core::Errors e = kernels::chain_spec_errors(spec, machine, core::echo(c.spec)); !e.empty())
    throw CliError(first_error(e));
  const kernels::GemmChainPlan plan = take(kernels::plan_gemm_chain(spec, machine));
  const plan::ChainChoice& best = plan.best;
  double layers = 0, conversions = 0, ind_layers = 0, ind_conversions = 0;
  for (std::size_t i = 0; i < spec.layers(); ++i) {
    layers += plan.candidates[i][best.candidate[i]].plan.estimated_cycles;
    ind_layers += plan.candidates[i][0].plan.estimated_cycles;
  }
  for (double x : best.conversion) conversions += x;
  for (double x : plan.independent.conversion) ind_conversions += x;
  std::string widths;
  for (auto w : spec.widths) widths += (widths.empty() ? "" : ",") + std::to_string(w);
  if (c.json) {
    nlohmann::json j;
    j["machine"] = machine.name;
    j["m"] = spec.m;
    j["widths"] = spec.widths;
    j["candidates_per_layer"] = spec.candidates_per_layer;
    j["estimated_cycles"] = plan.on_chip() ? plan.placed_cycles : plan.via_dram_cycles;
    j["path_estimated_cycles"] = best.total;
    j["independent_estimated_cycles"] = plan.independent.total;
    j["via_dram_estimated_cycles"] = plan.via_dram_cycles;
    j["activations"] = plan.on_chip() ? "lm" : "dram";
    for (std::size_t i = 0; i < spec.layers(); ++i) {
      const kernels::ChainLayerCandidate& lc = plan.candidates[i][best.candidate[i]];
      nlohmann::json l;
      l["layer"] = i;
      l["candidate"] = best.candidate[i];
      l["candidates"] = plan.candidates[i].size();
      l["plan"] = lc.choice;
      l["layout_in"] = lc.layout_in;
      l["layout_out"] = lc.layout_out;
      l["resident_in"] = lc.resident_in;
      l["resident_out"] = lc.resident_out;
      l["estimated_cycles"] = lc.plan.estimated_cycles;
      l["conversion_cycles"] = i < best.conversion.size() ? best.conversion[i] : 0.0;
      j["layers"].push_back(l);
    }
    std::cout << j.dump(2) << "\n";
  } else {
    std::cout << fmt::format(
        "tune chain on {}: {} layers, m {}, widths {}; up to {} candidates per layer (distinct layouts)\n",
        machine.name, spec.layers(), spec.m, widths, spec.candidates_per_layer);
    std::vector<std::vector<std::string>> rows{
        {"layer", "M×N×K", "choice", "plan", "estimated", "conversion"}};
    for (std::size_t i = 0; i < spec.layers(); ++i) {
      const kernels::ChainLayerCandidate& lc = plan.candidates[i][best.candidate[i]];
      rows.push_back({std::to_string(i), fmt::format("{}×{}×{}", spec.m, spec.widths[i + 1], spec.widths[i]),
                      fmt::format("{}/{}", best.candidate[i] + 1, plan.candidates[i].size()), lc.choice,
                      fmt::format("{:.0f}", lc.plan.estimated_cycles),
                      i < best.conversion.size() ? fmt::format("{:.0f}", best.conversion[i]) : "-"});
    }
    std::vector<std::size_t> width(rows[0].size());
    for (const auto& row : rows)
      for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    for (const auto& row : rows) {
      std::string s;
      for (std::size_t i = 0; i < row.size(); ++i)
        s += (i ? "  " : "") +
             (i == 3 ? fmt::format("{:<{}}", row[i], width[i]) : fmt::format("{:>{}}", row[i], width[i]));
      std::cout << s << "\n";
    }
    std::cout << fmt::format(
        "total {:.0f} cycles estimated: layers {:.0f} + conversions {:.0f}; each layer's own best plan: "
        "{:.0f} (layers {:.0f} + conversions {:.0f}); every activation through DRAM: {:.0f}\n",
        best.total, layers, conversions, plan.independent.total, ind_layers, ind_conversions,
        plan.via_dram_cycles);
    if (plan.placed_cycles != best.total)
      std::cout << fmt::format(
          "as placed in the LMs (layers leaving room for the next one's input): {:.0f}\n",
          plan.placed_cycles);
    if (!plan.on_chip()) {
      std::cout << "kept: every activation through DRAM, each layer on its own default plan (faster)\n";
    } else {
      std::cout << "kept: the activations in the LMs (where they fit), converted on the tree\n";
      for (std::size_t i = 0; i < spec.layers(); ++i) {
        const kernels::ChainLayerCandidate& lc = plan.candidates[i][best.candidate[i]];
        std::cout << fmt::format("layer {}: A {}\n         C {}\n", i,
                                 lc.resident_in.empty() ? "from DRAM" : lc.resident_in,
                                 lc.resident_out.empty() ? "to DRAM" : lc.resident_out);
      }
    }
  }
  if (!c.out_path.empty()) {
    files.write(c.out_path, kernels::chain_plan_text(spec, plan, machine), "--out");
    if (!c.json) std::cout << fmt::format("wrote {}\n", c.out_path);
  }
  files.commit();
}

void add_tune_chain(CLI::App& tune_cmd) {
  auto* cmd = tune_cmd.add_subcommand("chain",
                                      "Plan a chain of GEMM layers (an MLP): each layer's layouts by a "
                                      "shortest path over layers and conversions");
  auto c = std::make_shared<ChainCommand>();
  cmd->add_option("spec", c->spec, "Chain spec file (YAML: m, widths, optional candidates_per_layer)")
      ->required()
      ->type_name("SPEC");
  cmd->add_option("--machine", c->machine, "Machine file (YAML)")->required();
  cmd->add_option("--candidates", c->candidates,
                  "Candidates (distinct layouts) per layer (default: the spec's, else 6)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1000}));
  cmd->add_option("--out", c->out_path, "Write the plan to this chain plan file (YAML)")->type_name("FILE");
  cmd->add_flag("--json", c->json, "Print JSON instead of the table");
  cmd->callback([c] { tune_chain(*c); });
}

}  // namespace

void add_tune_command(CLI::App& app) {
  auto* tune_cmd = app.add_subcommand("tune", "Rank a kernel's candidate plans by estimate and simulation");
  tune_cmd->require_subcommand(1);
  for (const kernels::Kernel& kernel : kernels::registry())
    if (kernel.tunable) add_tune_kernel(*tune_cmd, kernel);
  add_tune_chain(*tune_cmd);
}

}  // namespace treesim::tools
