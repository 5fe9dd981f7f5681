// docs/library.md's example, as it stands there: a verified qgemm through the kernel contract and
// the run session.
#include <gtest/gtest.h>

#include "kernels/registry.h"
#include "tools/session/run_problem.h"
#include "sim/machine/machine_file.h"
#include "tests/test_support.h"

namespace {

TEST(LibraryExample, RunsAVerifiedQgemmThroughTheSession) {
  using namespace treesim;
  const machine::MachineConfig m =
      machine::load_machine_file(treesim::testing::source_path("configs/mini.yaml"));
  const kernels::Kernel& qgemm = *kernels::find_kernel("qgemm");
  auto options = kernels::parse_options(qgemm.options, {{"m", "96"}, {"n", "80"}, {"k", "200"}});
  std::unique_ptr<kernels::Problem> problem = std::move(qgemm.make_problem(options.value(), m).value());
  const kernels::Plan plan = kernels::plan_problem(*problem, m).value();
  models::Simulation sim(m);
  session::RunOptions run;
  run.kernel = "qgemm";
  run.verify = true;
  const session::Outcome out = session::run_problem(*problem, plan, sim, run).value();
  EXPECT_GT(out.report.cycles, 0u);
  ASSERT_TRUE(out.stats.verify);
  EXPECT_TRUE(out.stats.verify->ok);
  EXPECT_EQ(out.dram.at("C").size(), 96u * 80u);
  EXPECT_EQ(out.report.kernel, "qgemm");
}

}  // namespace
