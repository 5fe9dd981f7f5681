// `treesim run KERNEL`: one driver for every kernel of the registry (kernels/registry.cpp). Each
// kernel's options become command-line options; the driver adds --machine, --out, --verify,
// --plan and the run options, and walks the kernel contract (kernels/kernel.h) step by step.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <memory>

#include "kernels/registry.h"
#include "sim/io/npy.h"
#include "tools/cli.h"
#include "tools/run_options.h"

namespace treesim::tools {
namespace {

// Where CLI11 puts one kernel option's value: text for every kind, converted, range-checked and
// defaulted by kernels::parse_options exactly as for any other driver.
struct BoundOption {
  std::string text;
  bool flag = false;
  CLI::Option* option = nullptr;
};

struct KernelCommand {
  const kernels::Kernel* kernel = nullptr;
  std::string machine;
  std::vector<BoundOption> bound;  // one per kernel option, sized before CLI11 binds to it
  std::string out_path;
  bool verify = false, plan_only = false;
  RunOptions run;
};

[[noreturn]] void fail(const core::Errors& errors) {
  // One line: the first error (they are in the order the user would fix them).
  throw CliError(errors.empty() ? "failed" : errors.front().message());
}

template <typename T>
T take(kernels::Result<T> r) {
  if (!r) fail(r.errors());
  return std::move(r.value());
}

void bind(CLI::App& cmd, const kernels::OptionSpec& spec, BoundOption& b) {
  const std::string flag = kernels::option_flag(spec.name);
  if (spec.kind == kernels::OptionKind::kFlag) {
    b.option = cmd.add_flag(flag, b.flag, spec.help);
    return;
  }
  b.option = cmd.add_option(flag, b.text, spec.help);
  switch (spec.kind) {
    case kernels::OptionKind::kUnsigned:
      b.option->type_name("UINT");
      break;
    case kernels::OptionKind::kSigned:
      b.option->type_name("INT");
      break;
    case kernels::OptionKind::kPath:
      b.option->type_name("FILE");
      break;
    case kernels::OptionKind::kChoice:
      b.option->type_name(fmt::format("{{{}}}", fmt::join(spec.choices, ",")));
      break;
    default:
      break;
  }
  if (spec.default_value) b.option->default_str(kernels::to_text(*spec.default_value));
}

// The options given, as text.
std::map<std::string, std::string> given(const KernelCommand& c) {
  std::map<std::string, std::string> out;
  const auto& specs = c.kernel->options;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const BoundOption& b = c.bound[i];
    if (b.option->count() == 0) continue;
    out[specs[i].name] = specs[i].kind == kernels::OptionKind::kFlag ? (b.flag ? "true" : "false") : b.text;
  }
  return out;
}

void write_output(const kernels::OutputArray& array, const std::vector<std::uint8_t>& bytes,
                  const std::string& path) {
  io::NpyArray out;
  out.dtype = array.dtype;
  out.shape = array.shape;
  out.bytes = bytes;
  try {
    io::write_npy(path, out);
  } catch (const std::runtime_error& e) {
    throw CliError(e.what());
  }
}

void run_kernel(const KernelCommand& c) {
  const kernels::Kernel& kernel = *c.kernel;
  OutputSet files;  // --report, --vcd and --out: all written or none
  c.run.stage(files);
  if (!c.out_path.empty()) files.stage(c.out_path, "--out");
  machine::MachineConfig machine = load_machine_or_throw(c.machine);
  if (c.run.timing_only && (c.verify || !c.out_path.empty()))
    throw CliError(fmt::format("--timing-only: moves no data, so {} has nothing to {}",
                               c.verify ? "--verify" : "--out", c.verify ? "compare" : "write"));
  const kernels::Options options = take(kernels::parse_options(kernel.options, given(c)));
  std::unique_ptr<kernels::Problem> problem = take(kernel.make_problem(options, machine));
  if (core::Errors e = problem->check(machine); !e.empty()) fail(e);
  const kernels::Plan plan = take(problem->plan(machine));
  if (!c.run.quiet || c.plan_only) std::cout << plan.description << "\n";
  if (c.plan_only) return;
  const program::Program program = take(problem->program(plan, machine));
  // Timing only moves no bytes: the run needs only the names of the tensors that hold data.
  models::DramImage inputs;
  if (c.run.timing_only) {
    for (const std::string& name : problem->input_tensors()) inputs[name];
  } else {
    inputs = problem->inputs();
  }
  models::SimulationOptions sim = c.run.simulation(files);
  sim.kernel = kernel.name;
  models::SimulationResult r = run_simulation(machine, program, std::move(inputs), sim);
  report::RunStats& stats = r.stats;
  stats.kernel = kernel.name;
  problem->add_report_fields(plan, machine, stats);
  if (c.verify) stats.verify = problem->verify(r.dram, take(problem->reference()));
  finish_run(machine, stats, c.run, files);
  const std::vector<kernels::OutputArray> outputs = problem->outputs();
  if (!c.out_path.empty() && !outputs.empty())
    write_output(outputs.front(), r.dram.at(outputs.front().tensor), files.stage(c.out_path, "--out"));
  if (stats.verify && !stats.verify->ok) {
    std::uint64_t elements = 0;
    for (const auto& o : outputs) {
      std::uint64_t n = 1;
      for (auto d : o.shape) n *= d;
      elements += n;
    }
    throw CliError(fmt::format("verify failed: {} of {} elements differ; first {}", stats.verify->mismatches,
                               elements, stats.verify->first_mismatch),
                   1);
  }
  files.commit();
}

void add_kernel_command(CLI::App& run, const kernels::Kernel& kernel) {
  auto* cmd = run.add_subcommand(kernel.name, kernel.summary);
  auto c = std::make_shared<KernelCommand>();
  c->kernel = &kernel;
  c->bound.resize(kernel.options.size());  // never resized again: CLI11 holds pointers into it
  cmd->add_option("--machine", c->machine, "Machine file (YAML)")->required();
  for (std::size_t i = 0; i < kernel.options.size(); ++i) bind(*cmd, kernel.options[i], c->bound[i]);
  if (!kernel.output_help.empty()) cmd->add_option("--out", c->out_path, kernel.output_help);
  cmd->add_flag("--verify", c->verify,
                "Compare every element with the host reference (exit 1 on a mismatch)");
  cmd->add_flag("--plan", c->plan_only, "Print the plan and layouts, run nothing");
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
