// qgemm's tail: the last pass's last K step runs in tail pieces, so that the store of C's last rows
// overlaps the MACs of the pieces after them instead of following them all. Each test simulates once.
#include <gtest/gtest.h>

#include <any>

#include "kernels/gemm/gemm.h"
#include "tests/configs.h"
#include "tests/tools/session/simulated_kernel.h"

namespace treesim::kernels {
namespace {

TEST(QgemmTail, PartOfTheLastPassIsStoredBeforeItsLastMacEnds) {
  const machine::MachineConfig m = testing::config("mini");
  const auto run = testing::simulate_kernel("qgemm", {{"m", "1000"}, {"n", "64"}, {"k", "512"}}, m);
  ASSERT_TRUE(run);
  const QgemmPlan& q = std::any_cast<const QgemmPlan&>(run->plan.mapping);
  ASSERT_GT(tail_pieces(q), 1u);  // several passes, C in row pieces
  const std::vector<program::Instr>& instrs = run->program.instrs;
  const models::SimulationResult& r = run->outcome.run;
  std::size_t last_mac = 0;
  for (std::size_t i = 0; i < instrs.size(); ++i)
    if (std::holds_alternative<program::Mac>(instrs[i])) last_mac = i;
  // C's rows whose store starts once the last MAC has ended: some (the last piece's at least), not
  // all the last pass's (the pieces before went out under the MACs after them).
  const std::uint64_t last_pass_rows = 1000 - (q.m_passes - 1) * q.pm * q.tm;
  std::uint64_t after = 0;
  for (std::size_t i = 0; i < instrs.size(); ++i)
    if (const auto* st = std::get_if<program::Store>(&instrs[i]);
        st && r.timings[i].start >= r.timings[last_mac].end)
      after += st->shape[0];
  EXPECT_GT(after, 0u);
  EXPECT_LT(after, last_pass_rows);
}

}  // namespace
}  // namespace treesim::kernels
