#include "session/run_problem.h"

#include "sim/layout/diagnostic.h"

namespace treesim::session {

kernels::Result<kernels::Plan> plan_problem(const kernels::Problem& problem,
                                            const machine::MachineConfig& machine) {
  if (core::Errors e = problem.check(machine); !e.empty()) return e;
  return problem.plan(machine);
}

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
  try {
    out.run = sim.run(program.value(), inputs, options.simulation);
  } catch (const models::SimError& e) {
    return core::Error{"", e.what()};
  } catch (const layout::LayoutError& e) {
    return core::Error{"", e.what()};
  }
  out.stats = std::move(out.run.stats);
  out.stats.kernel = options.kernel;
  problem.add_report_fields(plan, machine, out.stats);
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
