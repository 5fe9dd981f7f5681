// A registered kernel run as `treesim run` runs it (its options, the default plan, its program and
// the run session), for tests of a kernel's schedule: which instruction ran when.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "kernels/registry.h"
#include "tools/session/run_problem.h"

namespace treesim::testing {

struct SimulatedKernel {
  std::unique_ptr<kernels::Problem> problem;
  kernels::Plan plan;
  program::Program program;  // what ran: `outcome.run.timings` follow its instructions
  session::Outcome outcome;
};

// Records a test failure naming the step and gives nullopt where a step fails.
inline std::optional<SimulatedKernel> simulate_kernel(const std::string& kernel,
                                                      const std::map<std::string, std::string>& options,
                                                      const machine::MachineConfig& m) {
  const kernels::Kernel* k = kernels::find_kernel(kernel);
  if (!k) {
    ADD_FAILURE() << "no kernel " << kernel;
    return std::nullopt;
  }
  kernels::Result<kernels::Options> o = kernels::parse_options(k->options, options);
  if (!o.ok()) {
    ADD_FAILURE() << "options: " << o.errors().front().message();
    return std::nullopt;
  }
  auto problem = k->make_problem(o.value(), m);
  if (!problem.ok()) {
    ADD_FAILURE() << "problem: " << problem.errors().front().message();
    return std::nullopt;
  }
  SimulatedKernel out;
  out.problem = std::move(problem.value());
  kernels::Result<kernels::Plan> plan = kernels::plan_problem(*out.problem, m);
  if (!plan.ok()) {
    ADD_FAILURE() << "plan: " << plan.errors().front().message();
    return std::nullopt;
  }
  out.plan = plan.value();
  kernels::Result<program::Program> prog = out.problem->program(out.plan, m);
  if (!prog.ok()) {
    ADD_FAILURE() << "program: " << prog.errors().front().message();
    return std::nullopt;
  }
  out.program = std::move(prog.value());
  models::Simulation sim(m);
  kernels::Result<session::Outcome> outcome = session::run_problem(*out.problem, out.plan, sim, {});
  if (!outcome.ok()) {
    ADD_FAILURE() << "run: " << outcome.errors().front().message();
    return std::nullopt;
  }
  out.outcome = std::move(outcome.value());
  return out;
}

}  // namespace treesim::testing
