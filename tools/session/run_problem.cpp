#include "tools/session/run_problem.h"

#include <algorithm>
#include <cstdint>

#include "sim/layout/diagnostic.h"

namespace treesim::session {

kernels::Result<Outcome> run_problem(kernels::Problem& problem, const kernels::Plan& plan,
                                     models::Simulation& sim, const RunOptions& options) {
  const machine::MachineConfig& machine = sim.machine();
  kernels::Result<program::Program> program = problem.program(plan, machine);
  if (!program) return program.errors();
  // Timing only moves no bytes: the run needs only the names of the tensors that hold data.
  models::DramImage inputs;
  if (options.simulation.functional) {
    inputs = problem.take_inputs();
  } else {
    for (const std::string& name : problem.input_tensors()) inputs[name];
  }
  Outcome out;
  // The kernel's phases, unless the caller asked for its own.
  models::SimulationOptions simulation = options.simulation;
  const std::vector<kernels::Problem::Phase> phases = simulation.phases.empty()
                                                          ? problem.phases(plan, program.value(), machine)
                                                          : std::vector<kernels::Problem::Phase>{};
  for (const auto& p : phases) simulation.phases.emplace_back(p.first, p.last);
  try {
    const program::CheckedProgram* checked = problem.checked_program(plan);
    out.run = checked ? sim.run(program.value(), *checked, inputs, simulation)
                      : sim.run(program.value(), inputs, simulation);
  } catch (const models::SimError& e) {
    return core::Error{"", e.what()};
  } catch (const layout::LayoutError& e) {
    return core::Error{"", e.what()};
  }
  out.stats = std::move(out.run.stats);
  out.stats.kernel = options.kernel;
  for (std::size_t i = 0; i < phases.size(); ++i) {
    // A phase's own duration: from its first instruction's start to its last one's end.
    std::uint64_t start = UINT64_MAX, end = 0;
    for (std::size_t k = phases[i].first; k < phases[i].last && k < out.run.timings.size(); ++k) {
      start = std::min(start, out.run.timings[k].start);
      end = std::max(end, out.run.timings[k].end);
    }
    out.stats.phases[phases[i].name] = {end > start ? end - start : 0, out.run.phases[i].work,
                                        phases[i].lm_bytes_per_pe};
  }
  problem.add_report_fields(plan, machine, out.stats);
  out.stats.useful_macs = problem.useful_macs();
  if (out.stats.functional) out.dram = problem.host_outputs(plan, std::move(out.run.dram));
  out.run.dram.clear();
  if (options.verify && out.stats.functional) {
    kernels::Result<kernels::DramImage> expected = problem.reference();
    if (!expected) return expected.errors();
    out.stats.verify = problem.verify(out.dram, expected.value());
  }
  out.outputs = problem.outputs();
  out.report = report::make_report(machine, out.stats);
  return out;
}

}  // namespace treesim::session
