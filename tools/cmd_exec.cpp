// `treesim exec`: run a program written as text.
#include <fmt/format.h>

#include <set>

#include "sim/core/checked.h"
#include "sim/core/echo.h"
#include "sim/io/input_file.h"
#include "sim/io/npy.h"
#include "sim/layout/parse.h"
#include "sim/program/program_text.h"
#include "tools/cli.h"
#include "tools/options.h"
#include "tools/run_options.h"

namespace treesim::tools {
namespace {

struct ExecOptions {
  std::string program;
  std::string machine;
  std::vector<std::string> inputs;   // NAME=FILE.npy
  std::vector<std::string> outputs;  // NAME=FILE.npy
  std::uint64_t seed = 1;
  bool print = false;
  RunOptions run;
};

std::pair<std::string, std::string> split_binding(const std::string& text, const char* option) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    throw CliError(fmt::format("{}: expected NAME=FILE.npy, got '{}'", option, core::echo(text)));
  return {text.substr(0, eq), text.substr(eq + 1)};
}

// Tensors the program loads before anything stores to them: its inputs.
std::set<std::string> program_inputs(const program::Program& p) {
  std::set<std::string> inputs, stored;
  for (const auto& instr : p.instrs) {
    if (const auto* l = std::get_if<program::Load>(&instr); l && !stored.count(l->tensor))
      inputs.insert(l->tensor);
    if (const auto* s = std::get_if<program::Store>(&instr)) stored.insert(s->tensor);
  }
  return inputs;
}

// Every tensor must fit DRAM on its own and all of them together, before any is allocated.
void check_dram_capacity(const program::Program& p, const machine::MachineConfig& machine,
                         const std::string& file) {
  std::uint64_t total = 0;
  for (const auto& t : p.tensors) {
    const auto bytes =
        core::checked_mul(core::checked_product(t.shape).value_or(UINT64_MAX), core::dtype_bytes(t.dtype));
    const auto sum = bytes ? core::checked_add(total, *bytes) : std::nullopt;
    if (!sum || *sum > machine.dram.bytes)
      throw CliError(
          fmt::format("{}: tensor '{}': expected the program's tensors to fit the machine's DRAM of {} "
                      "bytes, got {} bytes {}",
                      core::echo(file, 0), core::echo(t.name), machine.dram.bytes,
                      bytes ? std::to_string(*bytes) : "beyond 2^64",
                      total == 0 ? "for this tensor" : fmt::format("after {} bytes of others", total)));
    total = *sum;
  }
}

void run_exec(const ExecOptions& o) {
  OutputSet outputs;
  o.run.stage(outputs);
  std::vector<std::pair<std::string, std::string>> outputs_wanted;
  for (const auto& binding : o.outputs) {
    outputs_wanted.push_back(split_binding(binding, "--output"));
    outputs.stage(outputs_wanted.back().second, "--output");
  }
  machine::MachineConfig machine = load_machine_or_throw(o.machine);
  program::Program p;
  try {
    p = program::parse_program(io::read_input_file(o.program, io::kMaxProgramFileBytes, "program"), o.program,
                               layout::level_names(machine));
  } catch (const program::ProgramError& e) {
    throw CliError(e.what());
  } catch (const io::InputFileError& e) {
    throw CliError(fmt::format("{}: {}", core::echo(o.program, 0), e.reason()));
  }
  check_dram_capacity(p, machine, o.program);
  if (o.print) {
    emit(program::print_program(p, layout::level_names(machine)));
    return;
  }
  std::map<std::string, std::vector<std::uint8_t>> dram;
  for (const auto& binding : o.inputs) {
    auto [name, path] = split_binding(binding, "--input");
    const program::TensorDecl* t = p.find_tensor(name);
    if (!t)
      throw CliError(fmt::format("--input: expected a tensor of the program, got '{}'", core::echo(name)));
    io::NpyArray a;
    try {
      a = io::read_npy(path);
    } catch (const std::runtime_error& e) {
      throw CliError(e.what());
    }
    if (a.dtype != t->dtype || a.shape != t->shape)
      throw CliError(fmt::format("{}: expected {} {} for tensor '{}', got {} {}", path,
                                 core::dtype_name(t->dtype), io::shape_string(t->shape), name,
                                 core::dtype_name(a.dtype), io::shape_string(a.shape)));
    dram[name] = std::move(a.bytes);
  }
  std::uint64_t salt = 0;
  for (const std::string& name : program_inputs(p)) {
    ++salt;
    if (!dram.count(name)) dram[name] = random_bytes(p.find_tensor(name)->bytes(), o.seed * 1000003 + salt);
  }
  for (const auto& [name, path] : outputs_wanted)
    if (!p.find_tensor(name))
      throw CliError(fmt::format("--output: expected a tensor of the program, got '{}'", core::echo(name)));

  if (o.run.timing_only && !outputs_wanted.empty())
    throw CliError("--timing-only: moves no data, so --output has nothing to write");
  models::SimulationOptions sim = o.run.simulation(outputs);
  sim.kernel = o.program;
  models::SimulationResult r = run_simulation(machine, o.run.config(), p, dram, sim);
  r.stats.kernel = "exec";
  finish_run(machine, r.stats, o.run, outputs);
  for (const auto& [name, path] : outputs_wanted) {
    const program::TensorDecl* t = p.find_tensor(name);
    io::NpyArray a;
    a.dtype = t->dtype;
    a.shape = t->shape;
    a.bytes = r.dram.at(name);
    try {
      io::write_npy(outputs.stage(path, "--output"), a);
    } catch (const std::runtime_error& e) {
      throw CliError(fmt::format("--output: cannot write '{}': {}", core::echo(path), core::echo(e.what())));
    }
  }
  outputs.commit();
}

}  // namespace

void add_exec_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("exec", "Run a program (text, one instruction per line) on a machine");
  auto o = std::make_shared<ExecOptions>();
  cmd->add_option("program", o->program, "Program file")->required();
  cmd->add_option("--machine", o->machine, "Machine file (YAML)")->required();
  cmd->add_option("--input", o->inputs, "NAME=FILE.npy: DRAM contents of an input tensor (repeatable)");
  cmd->add_option("--output", o->outputs, "NAME=FILE.npy: write a tensor after the run (repeatable)");
  cmd->add_option("--seed", o->seed, "Seed for inputs not given with --input")
      ->check(unsigned_in(0))
      ->capture_default_str();
  cmd->add_flag("--print", o->print, "Print the parsed program in canonical form and exit");
  add_run_options(*cmd, o->run);
  cmd->callback([o] { run_exec(*o); });
}

}  // namespace treesim::tools
