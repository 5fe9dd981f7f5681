// `treesim place`: load one tensor into the LMs by a layout, gather it back, check it round-trips.
#include <fmt/format.h>

#include <sstream>

#include "sim/core/checked.h"
#include "sim/core/echo.h"
#include "sim/layout/bound_layout.h"
#include "sim/layout/diagnostic.h"
#include "sim/layout/parse.h"
#include "sim/program/instruction.h"
#include "tools/cli.h"
#include "tools/options.h"
#include "tools/run_options.h"

namespace treesim::tools {
namespace {

struct PlaceOptions {
  std::string machine;
  std::string shape;
  std::string dtype = "int8";
  std::string layout;
  std::uint64_t seed = 1;
  RunOptions run;
};

std::vector<std::uint64_t> parse_shape(const std::string& text) {
  std::vector<std::uint64_t> shape;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    bool ok = !item.empty() && item.size() <= 18 && item.find_first_not_of("0123456789") == std::string::npos;
    if (!ok || std::stoull(item) == 0)
      throw CliError(
          fmt::format("--shape: expected positive sizes like 1024,512, got '{}'", core::echo(text)));
    shape.push_back(std::stoull(item));
  }
  if (shape.empty()) throw CliError("--shape: expected positive sizes like 1024,512, got nothing");
  if (!core::checked_product(shape) || !core::checked_mul(*core::checked_product(shape), 4))
    throw CliError(
        fmt::format("--shape: expected a tensor whose size fits 64 bits, got '{}'", core::echo(text)));
  return shape;
}

void run_place(const PlaceOptions& o) {
  OutputSet outputs;
  o.run.stage(outputs);
  machine::MachineConfig machine = load_machine_or_throw(o.machine);
  program::TensorDecl tensor{"T", parse_shape(o.shape), core::DType::kInt8};
  std::optional<core::DType> dtype = core::parse_dtype(o.dtype);
  if (!dtype || !core::is_integer(*dtype) || *dtype == core::DType::kInt16)
    throw CliError(fmt::format("--dtype: expected int8, uint8 or int32, got '{}'", core::echo(o.dtype)));
  tensor.dtype = *dtype;
  program::TensorDecl back = tensor;
  back.name = "T_gathered";
  program::Program p;
  p.tensors = {tensor, back};
  if (tensor.bytes() > machine.dram.bytes)
    throw CliError(
        fmt::format("--shape: expected a tensor that fits the machine's {}-byte DRAM, got {} bytes",
                    machine.dram.bytes, tensor.bytes()));

  // A bad layout is shown with a caret under the offending token before anything runs.
  try {
    layout::TensorLayout parsed = layout::parse_layout_or_throw(o.layout, machine);
    program::Load load;
    load.tensor = "T";
    load.layout = parsed;
    program::Store store;
    store.tensor = "T_gathered";
    store.layout = parsed;
    p.instrs = {load, store};
    layout::require_resident(
        layout::bind_or_throw(parsed, tensor.shape, machine, core::dtype_bytes(tensor.dtype)));
  } catch (const layout::LayoutError& e) {
    std::string what = e.what();
    while (!what.empty() && what.back() == '\n') what.pop_back();
    throw CliError("invalid layout:\n" + what);
  }
  std::vector<std::uint8_t> input = random_bytes(tensor.bytes(), o.seed);
  models::SimulationOptions sim = o.run.simulation(outputs);
  sim.kernel = "place";
  sim.phases = {{0, 1}, {1, 2}};
  models::SimulationResult r = run_simulation(machine, o.run.config(), p, {{"T", input}}, sim);

  // The report is the load's; the gather is checked and timed on its own.
  report::RunStats stats = r.phases[0];
  const report::RunStats& gather = r.phases[1];
  stats.kernel = "place";
  const std::uint64_t gather_cycles = r.timings[1].end - r.timings[1].start;
  stats.extra["gather_cycles"] = gather_cycles;
  stats.phases["gather"] = {gather_cycles, gather.work, std::nullopt};
  if (o.run.timing_only) {  // nothing was moved: there is nothing to compare
    finish_run(machine, stats, o.run, outputs);
    outputs.commit();
    return;
  }
  report::VerifyResult verify;
  const std::vector<std::uint8_t>& got = r.dram.at("T_gathered");
  const std::size_t eb = core::dtype_bytes(tensor.dtype);
  for (std::uint64_t i = 0; i < input.size(); ++i) {
    if (got[i] == input[i]) continue;
    if (verify.mismatches++ == 0) verify.first_mismatch = fmt::format("element {} differs", i / eb);
  }
  verify.ok = verify.mismatches == 0;
  stats.verify = verify;
  finish_run(machine, stats, o.run, outputs);
  if (!verify.ok)
    throw CliError("place: the gathered tensor differs from the input: " + verify.first_mismatch, 1);
  outputs.commit();
}

}  // namespace

void add_place_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("place", "Load a tensor into the LMs by a layout, gather it back and verify");
  auto o = std::make_shared<PlaceOptions>();
  cmd->add_option("--machine", o->machine, "Machine file (YAML)")->required();
  cmd->add_option("--shape", o->shape, "Tensor shape, e.g. 1024,512")->required();
  cmd->add_option("--dtype", o->dtype, "Element type: int8, uint8 or int32")->capture_default_str();
  cmd->add_option("--layout", o->layout, "TensorLayout, e.g. \"((4_PE, 3:8), (8:1))\"")->required();
  cmd->add_option("--seed", o->seed, "Seed of the random tensor")
      ->check(unsigned_in(0))
      ->capture_default_str();
  add_run_options(*cmd, o->run);
  cmd->callback([o] { run_place(*o); });
}

}  // namespace treesim::tools
