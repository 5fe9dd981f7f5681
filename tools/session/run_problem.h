// The run session: the one workflow that runs a kernel's problem on a simulation. `treesim run`,
// `run mlp`, `tune`, the benchmarks and (through the command line) the Python module all call it,
// so what a run is — build the program, hand over the inputs, simulate, collect the kernel's
// outputs and report fields, verify — is written once. Errors come back as values.
#pragma once

#include <string>
#include <vector>

#include "kernels/kernel.h"
#include "models/simulation.h"
#include "sim/report/report.h"

namespace treesim::session {

struct RunOptions {
  std::string kernel;  // the report's kernel name
  // What the simulation writes (traces, phases) and whether it moves data (functional).
  models::SimulationOptions simulation;
  bool verify = false;  // compare the outputs with the problem's host reference
};

struct Outcome {
  report::RunStats stats;  // the run's counters with the kernel's fields (and the verification)
  report::Report report;   // derived from stats
  std::vector<kernels::OutputArray> outputs;
  models::DramImage dram;        // the kernel's outputs after the run (none when timing only)
  models::SimulationResult run;  // the simulation's own result (timings, phases), its DRAM moved out
};

// Runs `plan` of `problem` (kernels::plan_problem's) on `sim`: the program and the inputs (only their names when timing only),
// the simulation, the host's part of the outputs, the report fields, and with options.verify the
// comparison with the host reference. A program the machine cannot run, a layout that does not
// bind, or a failed reference is an error; a verification that finds mismatches is not (it is in
// stats.verify).
kernels::Result<Outcome> run_problem(kernels::Problem& problem, const kernels::Plan& plan,
                                     models::Simulation& sim, const RunOptions& options);

}  // namespace treesim::session
