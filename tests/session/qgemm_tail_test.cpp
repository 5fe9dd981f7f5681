// qgemm's tail: the last pass's last K step runs in tail pieces, so that the store of C's last rows
// overlaps the MACs of the pieces after them instead of following them all. Each test simulates once.
#include <gtest/gtest.h>

#include <any>

#include "kernels/qgemm/qgemm.h"
#include "kernels/registry.h"
#include "session/run_problem.h"
#include "tests/configs.h"

namespace treesim::kernels {
namespace {

TEST(QgemmTail, PartOfTheLastPassIsStoredBeforeItsLastMacEnds) {
  const machine::MachineConfig m = testing::config("mini");
  const Kernel* k = find_kernel("qgemm");
  ASSERT_NE(k, nullptr);
  Result<Options> o = parse_options(k->options, {{"m", "1000"}, {"n", "64"}, {"k", "512"}});
  ASSERT_TRUE(o.ok());
  auto problem = k->make_problem(o.value(), m);
  ASSERT_TRUE(problem.ok());
  Result<Plan> plan = session::plan_problem(*problem.value(), m);
  ASSERT_TRUE(plan.ok());
  const QgemmPlan& q = std::any_cast<const QgemmPlan&>(plan.value().mapping);
  ASSERT_GT(tail_pieces(q), 1u);  // several passes, C in row pieces
  Result<program::Program> prog = problem.value()->program(plan.value(), m);
  ASSERT_TRUE(prog.ok());
  models::Simulation sim(m);
  const Result<session::Outcome> outcome = session::run_problem(*problem.value(), plan.value(), sim, {});
  ASSERT_TRUE(outcome.ok());
  const models::SimulationResult& r = outcome->run;
  std::size_t last_mac = 0;
  for (std::size_t i = 0; i < prog->instrs.size(); ++i)
    if (std::holds_alternative<program::Mac>(prog->instrs[i])) last_mac = i;
  // C's rows whose store starts once the last MAC has ended: some (the last piece's at least), not
  // all the last pass's (the pieces before went out under the MACs after them).
  const std::uint64_t last_pass_rows = 1000 - (q.m_passes - 1) * q.pm * q.tm;
  std::uint64_t after = 0;
  for (std::size_t i = 0; i < prog->instrs.size(); ++i)
    if (const auto* st = std::get_if<program::Store>(&prog->instrs[i]);
        st && r.timings[i].start >= r.timings[last_mac].end)
      after += st->shape[0];
  EXPECT_GT(after, 0u);
  EXPECT_LT(after, last_pass_rows);
}

}  // namespace
}  // namespace treesim::kernels
