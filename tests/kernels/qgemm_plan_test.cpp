// Planning is pure: plans fit the LM, their layouts bind, and bad assignments are refused.
#include "kernels/gemm/gemm.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <tuple>
#include <variant>

#include "kernels/qgemm/qgemm_program.h"
#include "kernels/qgemm/verify.h"
#include "sim/layout/bound_layout.h"
#include "sim/layout/loader_plan.h"
#include "sim/layout/parse.h"
#include "sim/machine/machine_file.h"
#include "tests/configs.h"
#include "tests/test_support.h"

namespace treesim::kernels {
namespace {

using testing::config;

QgemmProblem plan_problem(std::uint64_t m, std::uint64_t n, std::uint64_t k) {
  QgemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.has_bias = true;
  return p;
}

void expect_binds(const layout::TensorLayout& l, std::vector<std::uint64_t> shape,
                  const machine::MachineConfig& m) {
  EXPECT_NO_THROW(layout::bind_or_throw(l, shape, m, 1)) << layout::to_string(l);
}

TEST(QgemmPlan, DefaultPlanFitsTheLmAndCoversTheProblem) {
  for (const char* name : {"mini", "mncore-board"}) {
    machine::MachineConfig m = config(name);
    for (auto [mm, nn, kk] : {std::tuple{37, 50, 129}, {256, 256, 256}, {1, 1, 1}, {1000, 3, 77}}) {
      QgemmProblem p = plan_problem(mm, nn, kk);
      QgemmPlan plan = default_plan(p, m);
      EXPECT_LE(plan.lm_bytes, m.lm_bytes()) << name;
      EXPECT_GE(plan.pm * plan.tm * plan.m_passes, p.m);
      EXPECT_GE(plan.pn * plan.tn * plan.n_passes, p.n);
      EXPECT_GE(plan.pk * plan.kt * plan.steps, p.k);
      EXPECT_GT(plan.estimated_cycles, 0);
    }
  }
}

TEST(QgemmPlan, TileLayoutsBindOnTheMachine) {
  machine::MachineConfig m = config("mncore-board");
  QgemmProblem p = plan_problem(37, 50, 129);
  QgemmPlan plan = default_plan(p, m);
  const std::uint64_t bm = std::min(p.m, plan.pm * plan.tm), bn = std::min(p.n, plan.pn * plan.tn);
  const std::uint64_t bk = std::min(p.k, plan.pk * plan.kt);
  expect_binds(tile_layout_a(plan, m, bm, bk), {bm, bk}, m);
  expect_binds(tile_layout_b(plan, m, bk, bn), {bk, bn}, m);
  expect_binds(tile_layout_c(plan, m, bm, bn), {bm, bn}, m);
}

TEST(QgemmPlan, OnFourElementWordsTileRowsAreWholeWordsPackedIntoLanes) {
  machine::MachineConfig m = machine::load_machine_file(testing::data_path("machines/mini-w4.yaml"));
  QgemmProblem p = plan_problem(37, 50, 129);
  p.out.multipliers.assign(50, p.out.multipliers[0]);  // per channel: every buffer is used
  QgemmPlan plan = default_plan(p, m);
  EXPECT_EQ(plan.tn % 4, 0u);
  EXPECT_EQ(plan.kt % 4, 0u);
  // Every buffer starts on an address of its element type: 4 lanes of 4 B or of 1 B.
  for (std::uint64_t at : {plan.lm_acc[0], plan.lm_acc[1], plan.lm_bias[0], plan.lm_bias[1], plan.lm_mult[0],
                           plan.lm_mult[1], plan.lm_shift[0], plan.lm_shift[1]})
    EXPECT_EQ(at % 16, 0u) << at;
  for (std::uint64_t at :
       {plan.lm_out[0], plan.lm_out[1], plan.lm_a[0], plan.lm_a[1], plan.lm_b[0], plan.lm_b[1]})
    EXPECT_EQ(at % 4, 0u) << at;
  const std::uint64_t bm = std::min(p.m, plan.pm * plan.tm), bn = std::min(p.n, plan.pn * plan.tn);
  const std::uint64_t bk = std::min(p.k, plan.pk * plan.kt);
  for (const layout::TensorLayout& l : {tile_layout_a(plan, m, bm, bk), tile_layout_b(plan, m, bk, bn),
                                        tile_layout_c(plan, m, bm, bn), tile_layout_vector(plan, m, bn)})
    EXPECT_NE(layout::to_string(l).find(", 4_W)"), std::string::npos) << layout::to_string(l);
  expect_binds(tile_layout_a(plan, m, bm, bk), {bm, bk}, m);
  expect_binds(tile_layout_b(plan, m, bk, bn), {bk, bn}, m);
  expect_binds(tile_layout_c(plan, m, bm, bn), {bm, bn}, m);
}

TEST(QgemmPlan, AKStepRoundedUpToAWordThatWouldOverflowTheLmShrinksByAWord) {
  machine::MachineConfig m = machine::load_machine_file(testing::data_path("machines/mini-w4.yaml"));
  // M over the 4 MABs, N over the 2 L1Bs: a 10×28 C tile and its buffers take 1792 bytes, and each
  // element of K step costs 2·(10 + 28) bytes, so this LM leaves room for a K step of 9, which
  // rounds up to 12 elements (three words): too many. One word less, 8, fits.
  m.levels.back().memory_bytes = 1792 + 76 * 9;
  QgemmPlan plan = make_plan(plan_problem(37, 50, 129), m, Assignment{{{2, 4}}, {{1, 2}}, {}});
  EXPECT_EQ(plan.tn, 28u);
  EXPECT_EQ(plan.kt, 8u);
  EXPECT_EQ(plan.steps, 17u);
  EXPECT_LE(plan.lm_bytes, m.lm_bytes());
}

TEST(QgemmPlan, AWordWideTileThatDoesNotFitSplitsMNotN) {
  machine::MachineConfig m = machine::load_machine_file(testing::data_path("machines/mini-w4.yaml"));
  m.levels.back().memory_bytes = 160;
  // M over all 32 PEs, N whole: N = 4 is one word, so only more M passes can shrink the 3×4 tile
  // (N passes once doubled until they wrapped to 0).
  QgemmPlan plan = make_plan(plan_problem(96, 4, 64), m, Assignment{{{1, 2}, {2, 4}, {3, 4}}, {}, {}});
  EXPECT_EQ(plan.tn, 4u);
  EXPECT_EQ(plan.n_passes, 1u);
  EXPECT_EQ(plan.m_passes, 2u);
  EXPECT_LE(plan.lm_bytes, m.lm_bytes());
}

TEST(QgemmPlan, AOneByOneWordTileThatDoesNotFitIsRefused) {
  machine::MachineConfig m = machine::load_machine_file(testing::data_path("machines/mini-w4.yaml"));
  m.levels.back().memory_bytes = 100;
  EXPECT_THROW(
      {
        try {
          make_plan(plan_problem(96, 4, 64), m, Assignment{{{1, 2}, {2, 4}, {3, 4}}, {}, {}});
        } catch (const QgemmError& e) {
          EXPECT_STREQ(e.what(), "a 1×4 C tile does not fit the 100-byte LM");
          throw;
        }
      },
      QgemmError);
}

TEST(QgemmPlan, LargeTilesAreSplitIntoPasses) {
  // 64×64 outputs per PE on the mini machine would not leave room in a 64 KiB LM for K steps.
  machine::MachineConfig m = config("mini");
  QgemmPlan plan = make_plan(plan_problem(4096, 4096, 64), m, Assignment{{{1, 2}, {3, 4}}, {{2, 4}}, {}});
  EXPECT_GT(plan.m_passes * plan.n_passes, 1u);
  EXPECT_LE(plan.lm_bytes, m.lm_bytes());
}

TEST(QgemmPlan, KSplitReducesAboveItsLevels) {
  machine::MachineConfig m = config("mini");
  QgemmPlan plan = make_plan(plan_problem(37, 50, 129), m, Assignment{{{1, 2}, {2, 4}}, {}, {{3, 4}}});
  EXPECT_EQ(plan.pk, 4u);
  EXPECT_EQ(plan.reduce_level, "MAB");
  EXPECT_NE(layout::to_string(tile_layout_c(plan, m, 37, 50)).find("1_PE"), std::string::npos);
}

// 1000×64×512 on mini with M over L1B, MAB and PE: 2 passes of 16 rows per PE, at least 4 K steps.
QgemmPlan two_pass_plan(const machine::MachineConfig& m) {
  return make_plan(plan_problem(1000, 64, 512), m, Assignment{{{1, 2}, {2, 4}, {3, 4}}, {}, {}},
                   Tiling{2, 4});
}

TEST(QgemmPlan, SeveralPassesStoreInRowPiecesThatDivideTheTile) {
  machine::MachineConfig m = config("mini");
  QgemmPlan plan = two_pass_plan(m);
  ASSERT_EQ(plan.m_passes, 2u);
  EXPECT_GT(plan.row_pieces, 1u);
  EXPECT_EQ(plan.tm % plan.row_pieces, 0u);
  EXPECT_LE(plan.row_pieces, plan.steps);  // at most one piece per step of the next pass
  expect_binds(tile_layout_a(plan, m, 489, 128), {489, 128}, m);
  expect_binds(tile_layout_c_pieces(plan, m, 1, 128, 64), {128, 64}, m);
}

TEST(QgemmPlan, OnePassStoresWhole) {
  machine::MachineConfig m = config("mini");
  QgemmPlan plan = make_plan(plan_problem(37, 50, 129), m, Assignment{{{2, 4}}, {{1, 2}}, {}});
  ASSERT_EQ(plan.m_passes * plan.n_passes, 1u);
  EXPECT_EQ(plan.row_pieces, 1u);
}

TEST(QgemmPlan, VectorsHaveTwoBuffersOnlyWithSeveralColumnBlocks) {
  machine::MachineConfig m = config("mini");
  QgemmProblem p = plan_problem(64, 8000, 64);
  p.out.multipliers.assign(p.n, p.out.multipliers.at(0));
  QgemmPlan blocks = make_plan(p, m, Assignment{{}, {{1, 2}, {2, 4}, {3, 4}}, {}});
  ASSERT_GT(blocks.n_passes, 1u);
  EXPECT_NE(blocks.lm_bias[0], blocks.lm_bias[1]);
  EXPECT_NE(blocks.lm_mult[0], blocks.lm_mult[1]);
  EXPECT_NE(blocks.lm_shift[0], blocks.lm_shift[1]);
  QgemmPlan one = make_plan(plan_problem(37, 50, 129), m, Assignment{{{2, 4}}, {{1, 2}}, {}});
  EXPECT_EQ(one.lm_bias[0], one.lm_bias[1]);
}

template <typename T>
std::vector<std::size_t> indices_of(const program::Program& prog) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < prog.instrs.size(); ++i)
    if (std::holds_alternative<T>(prog.instrs[i])) out.push_back(i);
  return out;
}

TEST(QgemmProgram, NextPassLoadsTwoStepsBeforeAnyStore) {
  machine::MachineConfig m = config("mini");
  QgemmPlan plan = two_pass_plan(m);
  program::Program prog = build_program(plan_problem(1000, 64, 512), plan, m);
  const std::size_t first_store = indices_of<program::Store>(prog).at(0);
  std::uint64_t loads_of_a = 0;
  for (std::size_t i = 0; i < first_store; ++i)
    if (const auto* l = std::get_if<program::Load>(&prog.instrs[i]); l && l->tensor == "A") ++loads_of_a;
  EXPECT_EQ(loads_of_a, plan.steps + 2);  // all of pass 0 and the first two steps of pass 1
}

TEST(QgemmProgram, ARaggedLastBlockLeavesItsPaddingPiecesOutOfItsMacs) {
  // 990 rows over 32 M units in 2 passes of 16-row tiles, stored in 16 pieces of 1 row: the last
  // block's 478 rows fill 15 pieces (15 rows per unit), so its MACs cover 15 rows, not 16.
  machine::MachineConfig m = config("mini");
  QgemmPlan plan =
      make_plan(plan_problem(990, 64, 512), m, Assignment{{{1, 2}, {2, 4}, {3, 4}}, {}, {}}, Tiling{2, 16});
  ASSERT_EQ(plan.m_passes, 2u);
  ASSERT_EQ(plan.tm, 16u);
  ASSERT_EQ(plan.row_pieces, 16u);
  EXPECT_EQ(pass_tile_rows(plan, last_block_rows(plan_problem(990, 64, 512), plan)), 15u);
  program::Program prog = build_program(plan_problem(990, 64, 512), plan, m);
  std::uint64_t rows = 0;
  for (std::size_t i : indices_of<program::Mac>(prog)) rows += std::get<program::Mac>(prog.instrs[i]).m;
  EXPECT_EQ(rows, plan.steps * (16 + 15));
}

TEST(QgemmProgram, StoresWriteEveryRowOfCOnce) {
  machine::MachineConfig m = config("mini");
  QgemmPlan plan = two_pass_plan(m);
  program::Program prog = build_program(plan_problem(1000, 64, 512), plan, m);
  std::vector<int> written(1000, 0);
  const std::vector<std::size_t> stores = indices_of<program::Store>(prog);
  ASSERT_GT(tail_pieces(plan), 1u);
  // Pass 0 in its row pieces over pass 1's steps, the last pass's in its tail pieces.
  EXPECT_EQ(stores.size(), plan.row_pieces + tail_pieces(plan));
  for (std::size_t i : stores) {
    const auto& st = std::get<program::Store>(prog.instrs[i]);
    EXPECT_EQ(st.offset[1], 0u);
    EXPECT_EQ(st.shape[1], 64u);
    for (std::uint64_t r = st.offset[0]; r < st.offset[0] + st.shape[0]; ++r) ++written.at(r);
  }
  EXPECT_EQ(std::count(written.begin(), written.end(), 1), 1000);
}

TEST(QgemmProgram, KSplitPassesAlternateAccumulatorsReducedInPlace) {
  machine::MachineConfig m = config("mini");
  QgemmPlan plan = make_plan(plan_problem(200, 1500, 513), m, Assignment{{{2, 4}}, {{1, 2}}, {{3, 4}}});
  ASSERT_GT(plan.m_passes * plan.n_passes, 1u);
  ASSERT_NE(plan.lm_acc[0], plan.lm_acc[1]);
  program::Program prog = build_program(plan_problem(200, 1500, 513), plan, m);
  const std::vector<std::size_t> reduces = indices_of<program::Reduce>(prog);
  ASSERT_GE(reduces.size(), 2u);
  for (std::size_t r = 0; r < reduces.size(); ++r) {
    const auto& red = std::get<program::Reduce>(prog.instrs[reduces[r]]);
    EXPECT_EQ(red.src, plan.lm_acc[r % 2]);
    EXPECT_EQ(red.dst, red.src);
  }
}

TEST(QgemmPlan, KSplitOverAnUpperLevelIsRefused) {
  machine::MachineConfig m = config("mini");
  try {
    make_plan(plan_problem(37, 50, 129), m, Assignment{{{3, 4}}, {}, {{1, 2}}});
    FAIL();
  } catch (const QgemmError& e) {
    EXPECT_NE(std::string(e.what()).find("K is split over L1B, but a K split must take the lowest levels"),
              std::string::npos)
        << e.what();
  }
}

TEST(QgemmPlan, PartialKLevelIsRefused) {
  machine::MachineConfig m = config("mini");
  EXPECT_THROW(make_plan(plan_problem(37, 50, 129), m, Assignment{{}, {}, {{3, 2}}}), QgemmError);
}

TEST(QgemmPlan, LayoutsFixTheAssignment) {
  machine::MachineConfig m = config("mini");
  QgemmProblem p = plan_problem(37, 50, 129);
  Assignment a = assignment_from_layouts(p, m, "(37,129)/((2_L1B, 4_MAB, 5:33), (4_PE, 33:1))", "", "");
  ASSERT_EQ(a.m.size(), 2u);
  EXPECT_EQ(a.m[0].level, 1u);
  EXPECT_EQ(a.m[1].size, 4u);
  ASSERT_EQ(a.k.size(), 1u);
  EXPECT_EQ(a.k[0].level, 3u);
  EXPECT_TRUE(a.fixed_m && a.fixed_k && !a.fixed_n);
}

TEST(QgemmPlan, DisagreeingLayoutsAreRefused) {
  machine::MachineConfig m = config("mini");
  QgemmProblem p = plan_problem(40, 50, 129);
  try {
    assignment_from_layouts(p, m, "((2_L1B, 4_MAB, 5:129), (129:1))", "", "((2_L1B, 20:50), (50:1))");
    FAIL();
  } catch (const QgemmError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--layout-a axis 0 distributes M over (2_L1B, 4_MAB) but --layout-c axis 0 over (2_L1B)");
  }
}

TEST(QgemmPlan, OneLevelForTwoDimensionsIsRefused) {
  machine::MachineConfig m = config("mini");
  QgemmProblem p = plan_problem(40, 48, 129);
  EXPECT_THROW(assignment_from_layouts(p, m, "((4_PE, 10:129), (129:1))", "((129:12), (4_PE, 12:1))", ""),
               QgemmError);
}

// Board 512×512×4096: with the L2Bs all on N, each L2B's link down to its L1Bs carries A's tile
// whole; as 4 (M) × 4 (N) it carries a quarter of A's tile and a quarter of B's.
TEST(QgemmPlan, ASharedLevelSendsEachOfItsLinksAPartOfEachOperand) {
  const machine::MachineConfig m = config("mncore-board");
  const QgemmProblem p = plan_problem(512, 512, 4096);
  const Assignment n_only{{{1, 8}, {2, 16}, {3, 4}}, {{0, 16}}, {}};
  const Assignment shared{{{0, 4}, {1, 8}, {3, 4}}, {{0, 4}, {2, 16}}, {}};
  auto l1b_link_bytes = [&](const layout::TensorLayout& l, std::uint64_t rows, std::uint64_t cols) {
    return layout::plan_load(layout::bind_or_throw(l, {rows, cols}, m, 1)).levels[1].busiest_down_port_bytes;
  };
  for (const auto& [a, a_share, b_share] : {std::tuple{n_only, 1u, 16u}, std::tuple{shared, 4u, 4u}}) {
    const QgemmPlan plan = make_plan(p, m, a);
    const std::uint64_t bm = std::min(p.m, plan.pm * plan.tm), bn = std::min(p.n, plan.pn * plan.tn);
    const std::uint64_t bk = std::min(p.k, plan.pk * plan.kt);
    EXPECT_EQ(l1b_link_bytes(tile_layout_a(plan, m, bm, bk), bm, bk), bm * bk / a_share) << describe(plan, m);
    EXPECT_EQ(l1b_link_bytes(tile_layout_b(plan, m, bk, bn), bk, bn), bk * bn / b_share) << describe(plan, m);
  }
  EXPECT_NE(describe(make_plan(p, m, shared), m).find("L2B→M×N (4×4)"), std::string::npos);
}

TEST(QgemmPlan, WholeLayoutsReproduceThePlan) {
  machine::MachineConfig m = config("mncore-board");
  QgemmProblem p = plan_problem(300, 200, 500);
  QgemmPlan plan = default_plan(p, m);
  Assignment again = assignment_from_layouts(p, m, whole_layout_a(p, plan, m), whole_layout_b(p, plan, m),
                                             whole_layout_c(p, plan, m));
  EXPECT_EQ(again.m, plan.assignment.m);
  EXPECT_EQ(again.n, plan.assignment.n);
  EXPECT_EQ(again.k, plan.assignment.k);
}

TEST(QgemmVerify, FirstMismatchIsNamedByRowAndColumn) {
  report::VerifyResult v = compare_outputs({1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 0, 7}, 3);
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.mismatches, 2u);
  EXPECT_EQ(v.first_mismatch, "C[1,1]: got 5, expected 0");
}

TEST(QgemmVerify, EqualOutputsAreOk) {
  report::VerifyResult v = compare_outputs({1, -2}, {1, -2}, 2);
  EXPECT_TRUE(v.ok);
  EXPECT_EQ(v.mismatches, 0u);
}

}  // namespace
}  // namespace treesim::kernels
