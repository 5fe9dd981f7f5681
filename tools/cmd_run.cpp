// `treesim run KERNEL`: one driver for every kernel of the registry (kernels/registry.cpp). Each
// kernel's options become command-line options; the driver adds --machine, --out, --verify,
// --plan and the run options, and walks the kernel contract (kernels/kernel.h) step by step.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <memory>
#include <set>

#include "kernels/registry.h"
#include "tools/session/run_problem.h"
#include "sim/io/npy.h"
#include "sim/layout/diagnostic.h"
#include "sim/numeric/quantize.h"
#include "sim/report/report.h"
#include "tools/cli.h"
#include "tools/kernel_options.h"
#include "tools/run_options.h"

namespace treesim::tools {
namespace {

struct KernelCommand {
  const kernels::Kernel* kernel = nullptr;
  std::string machine;
  std::vector<BoundOption> bound;  // one per kernel option, sized before CLI11 binds to it
  std::string out_path;
  std::string plan_file;  // --plan-file: the plan a tuner wrote
  bool verify = false, plan_only = false;
  RunOptions run;
  const machine::MachineConfig* plan_machine = nullptr;  // the loaded machine, while a command runs
};

// --out-dtype f32: scale · (q − zero_point) of each code, computed in double and rounded to f32 once
// (exact for 8-bit codes up to that rounding, as oneDNN's f32 multiply).
std::vector<float> dequantize_codes(const std::vector<std::uint8_t>& bytes, core::DType dtype,
                                    const kernels::OutputArray::Dequantize& d) {
  std::vector<float> out(bytes.size());
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const std::int32_t q = dtype == core::DType::kInt8 ? static_cast<std::int8_t>(bytes[i]) : bytes[i];
    out[i] = static_cast<float>(numeric::dequantize(q, {d.scale, d.zero_point, dtype}));
  }
  return out;
}

void write_output(const kernels::OutputArray& array, const std::vector<std::uint8_t>& bytes,
                  const std::string& path) {
  io::NpyArray out;
  out.dtype = array.dtype;
  out.shape = array.shape;
  out.bytes = bytes;
  if (array.dequantize)
    out = io::make_npy(array.shape, dequantize_codes(bytes, array.dtype, *array.dequantize));
  try {
    io::write_npy(path, out);
  } catch (const std::runtime_error& e) {
    throw CliError(e.what());
  }
}

// What one run of a problem gives: its stats (with the kernel's fields and the verification), the
// kernel's outputs and the DRAM after the run.
struct ProblemRun {
  report::RunStats stats;
  std::vector<kernels::OutputArray> outputs;
  models::DramImage dram;
};

std::uint64_t elements(const std::vector<kernels::OutputArray>& outputs) {
  std::uint64_t total = 0;
  for (const auto& o : outputs) {
    std::uint64_t n = 1;
    for (auto d : o.shape) n *= d;
    total += n;
  }
  return total;
}

// One problem planned and run on `sim` by the run session (tools/session/run_problem.h). With --plan only
// the plan is printed (after `heading`).
ProblemRun run_one(const KernelCommand& c, const kernels::Options& options, OutputSet& files,
                   models::Simulation* sim, const std::string& heading) {
  const kernels::Kernel& kernel = *c.kernel;
  const machine::MachineConfig& machine = sim ? sim->machine() : *c.plan_machine;
  std::unique_ptr<kernels::Problem> problem = take(kernel.make_problem(options, machine));
  if (core::Errors e = problem->check(machine); !e.empty()) throw CliError(first_error(e));
  const kernels::Plan plan = c.plan_file.empty() ? take(problem->plan(machine))
                                                 : take(problem->plan_from_file(c.plan_file, machine));
  if (!c.run.quiet || c.plan_only) std::cout << heading << plan.description << "\n";
  ProblemRun out;
  if (c.plan_only) return out;
  session::RunOptions run;
  run.kernel = kernel.name;
  run.simulation = c.run.simulation(files);
  run.simulation.kernel = kernel.name;
  run.simulation.read_back_stored_only = true;  // outputs are stored; the inputs are the problem's
  run.verify = c.verify;
  session::Outcome outcome = take(session::run_problem(*problem, plan, *sim, run));
  out.stats = std::move(outcome.stats);
  out.outputs = std::move(outcome.outputs);
  out.dram = std::move(outcome.dram);
  return out;
}

void check_verified(const ProblemRun& run, const std::string& what) {
  const auto& v = run.stats.verify;
  if (v && !v->ok)
    throw CliError(fmt::format("verify failed{}: {} of {} elements differ; first {}", what, v->mismatches,
                               elements(run.outputs), v->first_mismatch),
                   1);
}

// "1234 (12.3%)"
std::string busy_text(std::uint64_t busy, double utilization) {
  return fmt::format("{} ({:.1f}%)", busy, 100.0 * utilization);
}

// The runs of a comparison side by side: one column per choice.
std::string comparison_table(const machine::MachineConfig& machine, const std::string& kernel,
                             const std::string& option, const std::vector<std::string>& names,
                             const std::vector<report::Report>& reports) {
  std::vector<std::pair<std::string, std::vector<std::string>>> rows;
  auto row = [&](const std::string& label, auto cell) {
    std::vector<std::string> cells;
    for (const report::Report& r : reports) cells.push_back(cell(r));
    rows.emplace_back(label, std::move(cells));
  };
  row("cycles", [](const report::Report& r) { return std::to_string(r.cycles); });
  row("bound",
      [](const report::Report& r) { return fmt::format("{} {}", r.roofline.cycles, r.roofline.resource); });
  row("DRAM read B", [](const report::Report& r) { return std::to_string(r.work.dram_read_bytes); });
  row("DRAM written B", [](const report::Report& r) { return std::to_string(r.work.dram_write_bytes); });
  for (std::size_t l = 0; l < machine.levels.size(); ++l)
    row(machine.levels[l].name + " down sent B", [&](const report::Report& r) {
      return l < r.levels.size() ? std::to_string(r.levels[l].traffic.down_sent_bytes) : std::string("-");
    });
  // The PE units any run used, then the kernel's fields that differ between the runs.
  std::set<std::string> units;
  for (const report::Report& r : reports)
    for (const report::UnitReport& u : r.units)
      if (u.pe_busy_min_max && u.busy_cycles > 0) units.insert(u.name);
  for (const std::string& name : units)
    row(name + " busy", [&](const report::Report& r) {
      for (const report::UnitReport& u : r.units)
        if (u.name == name) return busy_text(u.busy_cycles, u.utilization);
      return std::string("0");
    });
  if (reports.front().sparse) {
    auto sparse = [](const report::Report& r) { return r.sparse ? *r.sparse : report::SparseReport{}; };
    row("entries walked", [&](const report::Report& r) { return std::to_string(sparse(r).stored_entries); });
    row("PE nnz max", [&](const report::Report& r) { return std::to_string(sparse(r).pe_nnz_max); });
    row("imbalance", [&](const report::Report& r) { return fmt::format("{:.3f}", sparse(r).imbalance); });
    row("wasted MAC slots",
        [&](const report::Report& r) { return std::to_string(sparse(r).wasted_mac_slots); });
  }
  std::set<std::string> fields;
  for (const report::Report& r : reports)
    for (const auto& [key, value] : r.fields)
      if (reports.front().fields.count(key) && reports.front().fields.at(key) != value) fields.insert(key);
  for (const std::string& key : fields)
    row(key, [&](const report::Report& r) {
      auto it = r.fields.find(key);
      return it == r.fields.end() ? std::string("-") : std::to_string(it->second);
    });
  if (reports.front().verify)
    row("verify", [](const report::Report& r) {
      return r.verify ? (r.verify->ok ? std::string("ok") : std::string("MISMATCH")) : std::string("-");
    });
  std::size_t label = 0;
  std::vector<std::size_t> width(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) width[i] = names[i].size();
  for (const auto& [name, cells] : rows) {
    label = std::max(label, name.size());
    for (std::size_t i = 0; i < cells.size(); ++i) width[i] = std::max(width[i], cells[i].size());
  }
  std::string out = fmt::format("{} on {}, --{} compared:\n{:<{}}", kernel, machine.name, option, "", label);
  for (std::size_t i = 0; i < names.size(); ++i) out += fmt::format("  {:>{}}", names[i], width[i]);
  out += "\n";
  for (const auto& [name, cells] : rows) {
    out += fmt::format("{:<{}}", name, label);
    for (std::size_t i = 0; i < cells.size(); ++i) out += fmt::format("  {:>{}}", cells[i], width[i]);
    out += "\n";
  }
  return out;
}

// `--OPTION all`: one run per other choice, on one simulation, compared side by side; --report holds
// every run's report by choice.
void run_comparison(const KernelCommand& c, const kernels::Options& options,
                    const machine::MachineConfig& machine, OutputSet& files) {
  const kernels::Kernel& kernel = *c.kernel;
  const std::string flag = kernels::option_flag(kernel.compare_option);
  if (!c.out_path.empty())
    throw CliError(fmt::format("{} all: --out would write one C of several; choose one", flag));
  if (!c.run.vcd_path.empty())
    throw CliError(fmt::format("{} all: --vcd would trace several runs into one file; choose one", flag));
  if (!c.run.json_path.empty())
    throw CliError(
        fmt::format("{} all: --trace-json would trace several runs into one file; choose one", flag));
  std::vector<std::string> names;
  for (const kernels::OptionSpec& spec : kernel.options)
    if (spec.name == kernel.compare_option)
      for (const std::string& choice : spec.choices)
        if (choice != "all") names.push_back(choice);
  std::unique_ptr<models::Simulation> sim;
  if (!c.plan_only) sim = std::make_unique<models::Simulation>(machine, c.run.config());
  std::vector<report::Report> reports;
  for (const std::string& name : names) {
    kernels::Options one = options;
    one.set(kernel.compare_option, name);
    ProblemRun run = run_one(c, one, files, sim.get(), fmt::format("{} {}: ", flag, name));
    if (c.plan_only) continue;
    check_verified(run, fmt::format(" with {} {}", flag, name));
    reports.push_back(report::make_report(machine, run.stats));
  }
  if (c.plan_only) return;
  if (!c.run.quiet)
    std::cout << comparison_table(machine, kernel.name, kernel.compare_option, names, reports);
  if (!c.run.report_path.empty()) {
    std::string json = fmt::format("{{\n\"compare\": \"{}\",\n\"runs\": {{", kernel.compare_option);
    for (std::size_t i = 0; i < reports.size(); ++i)
      json += fmt::format("{}\n\"{}\": {}", i ? "," : "", names[i], report::to_json(reports[i]));
    json += "\n}\n}\n";
    files.write(c.run.report_path, json, "--report");
  }
  files.commit();
}

void run_kernel(KernelCommand& c) {
  const kernels::Kernel& kernel = *c.kernel;
  OutputSet files;  // --report, --vcd and --out: all written or none
  c.run.stage(files);
  if (!c.out_path.empty()) files.stage(c.out_path, "--out");
  const machine::MachineConfig machine = load_machine_or_throw(c.machine);
  c.plan_machine = &machine;
  if (c.run.timing_only && (c.verify || !c.out_path.empty()))
    throw CliError(fmt::format("--timing-only: moves no data, so {} has nothing to {}",
                               c.verify ? "--verify" : "--out", c.verify ? "compare" : "write"));
  const kernels::Options options =
      take(kernels::parse_options(kernel.options, given_options(kernel, c.bound)));
  if (!kernel.compare_option.empty() && options.text(kernel.compare_option) == "all") {
    if (!c.plan_file.empty())
      throw CliError(
          fmt::format("--plan-file: runs the one plan in the file; --{} all compares the "
                      "options' plans (give one or the other)",
                      kernel.compare_option));
    return run_comparison(c, options, machine, files);
  }
  std::unique_ptr<models::Simulation> sim;
  if (!c.plan_only) sim = std::make_unique<models::Simulation>(machine, c.run.config());
  const ProblemRun run = run_one(c, options, files, sim.get(), "");
  if (c.plan_only) return;
  finish_run(machine, run.stats, c.run, files);
  if (!c.out_path.empty() && !run.outputs.empty())
    write_output(run.outputs.front(), run.dram.at(run.outputs.front().tensor),
                 files.stage(c.out_path, "--out"));
  check_verified(run, "");
  files.commit();
}

void add_kernel_command(CLI::App& run, const kernels::Kernel& kernel) {
  auto* cmd = run.add_subcommand(kernel.name, kernel.summary);
  auto c = std::make_shared<KernelCommand>();
  c->kernel = &kernel;
  cmd->add_option("--machine", c->machine, "Machine file (YAML)")->required();
  bind_kernel_options(*cmd, kernel, c->bound);
  if (!kernel.output_help.empty()) cmd->add_option("--out", c->out_path, kernel.output_help);
  cmd->add_flag("--verify", c->verify,
                "Compare every element with the host reference (exit 1 on a mismatch)");
  cmd->add_flag("--plan", c->plan_only, "Print the plan and layouts, run nothing");
  if (kernel.plan_files)
    cmd->add_option("--plan-file", c->plan_file, "Run the plan in this file (written by treesim tune --out)")
        ->type_name("FILE");
  add_run_options(*cmd, c->run);
  cmd->callback([c] { run_kernel(*c); });
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto* run = app.add_subcommand("run", "Run a kernel on a machine");
  // A name that is no kernel reaches the callback below (as an extra), for a message that names it.
  run->require_subcommand(0, 1);
  std::string names;
  for (const kernels::Kernel& kernel : kernels::registry()) {
    add_kernel_command(*run, kernel);
    names += (names.empty() ? "" : ", ") + kernel.name;
  }
  add_mlp_command(*run);
  run->allow_extras();  // after the kernels' commands, which would inherit it
  run->callback([run, names] {
    const std::vector<std::string> extras = run->remaining();
    if (!run->get_subcommands().empty() && extras.empty()) return;
    if (!run->get_subcommands().empty())
      throw CliError(fmt::format("The following arguments were not expected: {}", fmt::join(extras, " ")));
    if (extras.empty()) throw CliError(fmt::format("run: name a kernel ({})", names));
    throw CliError(fmt::format("run: unknown kernel '{}' (the kernels are {})", extras.front(), names));
  });
}

}  // namespace treesim::tools
