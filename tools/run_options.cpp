#include "tools/run_options.h"

#include <iostream>

#include "models/simulation.h"
#include "sim/core/mt19937_64.h"
#include "sim/layout/diagnostic.h"
#include "sim/report/report.h"
#include "tools/cli.h"
#include "tools/options.h"

namespace treesim::tools {

void RunOptions::stage(OutputSet& outputs) const {
  if (!report_path.empty()) outputs.stage(report_path, "--report");
  if (!vcd_path.empty()) outputs.stage(vcd_path, "--vcd");
  if (!vcd_path.empty()) outputs.stage(vcd_path + ".gtkw", "--vcd");
  if (!json_path.empty()) outputs.stage(json_path, "--trace-json");
}

models::SimulationOptions RunOptions::simulation(OutputSet& outputs) const {
  models::SimulationOptions o;
  if (!vcd_path.empty()) {
    o.vcd_path = outputs.stage(vcd_path, "--vcd");
    o.gtkw_path = outputs.stage(vcd_path + ".gtkw", "--vcd");
    o.vcd_name = vcd_path;
  }
  if (!json_path.empty()) o.json_path = outputs.stage(json_path, "--trace-json");

  o.vcd_filter.depth = vcd_depth;
  o.vcd_filter.units = vcd_units;
  o.functional = !timing_only;
  return o;
}

models::SimulationConfig RunOptions::config() const {
  models::SimulationConfig c;
  c.threads = threads;
  if (quantum_cycles > 0) c.quantum_cycles = quantum_cycles;
  return c;
}

void add_run_options(CLI::App& cmd, RunOptions& o) {
  cmd.add_option("--report", o.report_path, "Write the JSON report to this file");
  cmd.add_option("--vcd", o.vcd_path, "Write a VCD trace to this file, and a GTKWave view to FILE.gtkw");
  cmd.add_option("--trace-json", o.json_path,
                 "Write a Chrome trace-event JSON (ui.perfetto.dev, chrome://tracing) to this file");
  // The --vcd-* names came first; each is its own option so that an error names the one typed.
  for (const char* name : {"--trace-depth", "--vcd-depth"})
    cmd.add_option(name, o.vcd_depth,
                   name[2] == 't' ? "Trace units down to this many levels below the board (0 = board)"
                                  : "The same as --trace-depth")
        ->check(signed_in(0, 1000));
  for (const char* name : {"--trace-units", "--vcd-units"})
    cmd.add_option(name, o.vcd_units,
                   name[2] == 't'
                       ? "Trace only units whose path matches this glob, e.g. 'board.L2B_0*' (JSON "
                         "default: one unit per distinct timeline)"
                       : "The same as --trace-units");
  cmd.add_flag("--quiet,-q", o.quiet, "Print no summary");
  cmd.add_flag("--timing-only", o.timing_only,
               "Simulate timing only: the same cycles and counters, no bytes moved and nothing computed");
  cmd.add_option("--threads", o.threads,
                 "Host threads for the PEs' functional work (default: this machine's cores); results do "
                 "not depend on it")
      ->check(unsigned_in(1, 1024));
  cmd.add_option("--quantum", o.quantum_cycles,
                 "Cycles the sequencer may run ahead of SystemC time before it synchronises (default: "
                 "the machine file's quantum_cycles, else 1000); cycles do not depend on it")
      ->check(unsigned_in(1, std::uint64_t{1} << 40));
}

void finish_run(const machine::MachineConfig& machine, const report::RunStats& stats, const RunOptions& o,
                OutputSet& outputs) {
  const report::Report r = report::make_report(machine, stats);
  if (!o.quiet) std::cout << report::to_text(r) << std::flush;
  if (!o.report_path.empty()) outputs.write(o.report_path, report::to_json(r), "--report");
}

models::SimulationResult run_simulation(const machine::MachineConfig& machine,
                                        const models::SimulationConfig& config,
                                        const program::Program& program,
                                        const std::map<std::string, std::vector<std::uint8_t>>& inputs,
                                        const models::SimulationOptions& options,
                                        const std::function<void(models::Simulation&)>& after) {
  try {
    models::Simulation sim(machine, config);
    models::SimulationResult r = sim.run(program, inputs, options);
    if (after) after(sim);
    return r;
  } catch (const models::SimError& e) {
    throw CliError(e.what());
  } catch (const layout::LayoutError& e) {
    throw CliError(e.what());
  }
}

std::vector<std::uint8_t> random_bytes(std::uint64_t count, std::uint64_t seed) {
  core::Mt19937_64 gen(seed);
  std::vector<std::uint8_t> out(count);
  for (std::uint64_t i = 0; i < count; i += 8) {
    std::uint64_t v = gen();
    for (std::uint64_t j = 0; j < 8 && i + j < count; ++j)
      out[i + j] = static_cast<std::uint8_t>(v >> (8 * j));
  }
  return out;
}

}  // namespace treesim::tools
