// Row gathers and scatters (row_gather.h): the traffic against a brute force that visits every slot
// of the layout, looks up the tensor row its block row names, and builds every unit's row set from
// its PEs'; the checker's rules for `rows`.
#include "sim/program/row_gather.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "sim/layout/parse.h"
#include "sim/layout/slots.h"
#include "sim/program/checked_program.h"
#include "sim/program/program_text.h"
#include "sim/program/row_list.h"
#include "tests/configs.h"

namespace treesim::program {
namespace row_gather_test {

constexpr std::uint64_t P = kPadRow;

struct Case {
  std::vector<std::uint64_t> rows;  // of the rows' matrix
  std::uint64_t cols;               // the tensor's columns (and the block's)
  std::string layout;               // of the [rows.size(), cols] block
};

void check_gather(const Case& k) {
  SCOPED_TRACE(k.layout);
  const machine::MachineConfig m = testing::mini();
  const layout::BoundLayout b =
      layout::bind_or_throw(layout::parse_layout_or_throw(k.layout, m), {k.rows.size(), k.cols}, m, 1);
  const std::size_t levels = m.levels.size();
  std::vector<std::uint64_t> below(levels + 1, 1);
  for (std::size_t l = levels; l-- > 0;)
    below[l] = below[l + 1] * (l + 1 < levels ? m.levels[l + 1].fanout : 1);
  std::vector<std::map<std::uint64_t, std::set<std::uint64_t>>> need(levels);
  std::set<std::uint64_t> board;
  layout::for_each_slot(b, [&](std::uint64_t pe, std::uint64_t, std::int64_t e) {
    if (e < 0) return;
    const std::uint64_t row = k.rows[static_cast<std::uint64_t>(e) / k.cols];
    if (row >= kGapRow) return;  // padding or a gap: nothing moves
    const std::uint64_t x = row * k.cols + static_cast<std::uint64_t>(e) % k.cols;
    board.insert(x);
    for (std::size_t l = 0; l < levels; ++l) need[l][pe / below[l]].insert(x);
  });
  const HaloTraffic h = row_gather_traffic(RowList(k.rows), k.cols, {0, 0}, b);
  EXPECT_EQ(h.plan.dram_read_bytes, board.size());
  for (std::size_t x = 0; x < levels; ++x) {
    SCOPED_TRACE(m.levels[x].name);
    std::uint64_t delivered = 0, sent = 0;
    for (const auto& [u, s] : need[x]) delivered += s.size();
    if (x == 0)
      sent = board.size();
    else
      for (const auto& [p, s] : need[x - 1]) sent += s.size();
    EXPECT_EQ(h.plan.levels[x].down_delivered_bytes, delivered);
    EXPECT_EQ(h.plan.levels[x].down_sent_bytes, sent);
  }
}

// Two rows per PE, the rows of a MAB's PEs shared with the other MABs of its L1B.
TEST(RowGather, SharedRowsMatchABruteForce) {
  std::vector<std::uint64_t> rows;
  for (std::uint64_t pe = 0; pe < 32; ++pe)
    for (std::uint64_t i = 0; i < 2; ++i) rows.push_back(2 * (pe % 4) + i + 8 * (pe / 16));
  check_gather({rows, 4, "((2_L1B, 4_MAB, 4_PE, 2:4), (4:1))"});
}

// Scattered rows with padding and repeats inside one PE, columns split over the PEs.
TEST(RowGather, PaddingRepeatsAndSplitColumnsMatchABruteForce) {
  std::vector<std::uint64_t> rows;
  for (std::uint64_t i = 0; i < 24; ++i) rows.push_back(i % 5 == 4 ? P : (i * 7) % 11);
  check_gather({rows, 8, "((2_L1B, 4_MAB, 3:2), (4_PE, 2:1))"});
}

// A row that no PE but one needs travels down that PE's path only.
TEST(RowGather, GapsMoveNothingAsPaddingDoes) {
  constexpr std::uint64_t G = kGapRow;
  check_gather({{3, G, G, 1, P, G, 3, 0}, 2, "((2_L1B, 4_MAB, 1:2), (2:1))"});
  check_gather({{G, G, G, G, G, G, G, 5}, 3, "((2_L1B, 4_MAB, 1:3), (3:1))"});
}

TEST(RowGather, APrivateRowCrossesEachLevelOnce) {
  const machine::MachineConfig m = testing::mini();
  std::vector<std::uint64_t> rows(32, P);
  rows[5] = 3;
  const layout::BoundLayout b = layout::bind_or_throw(
      layout::parse_layout_or_throw("((2_L1B, 4_MAB, 4_PE, 1:4), (4:1))", m), {32, 4}, m, 1);
  const HaloTraffic h = row_gather_traffic(RowList(rows), 4, {0, 0}, b);
  EXPECT_EQ(h.plan.dram_read_bytes, 4u);
  for (const auto& level : h.plan.levels) EXPECT_EQ(level.down_delivered_bytes, 4u);
  EXPECT_EQ(h.pes, 1u);
}

TEST(RowScatter, EachNonPaddingRowGoesUpOnce) {
  const machine::MachineConfig m = testing::mini();
  std::vector<std::uint64_t> rows;
  for (std::uint64_t pe = 0; pe < 32; ++pe) rows.push_back(pe), rows.push_back(P);
  const layout::BoundLayout b = layout::bind_or_throw(
      layout::parse_layout_or_throw("((2_L1B, 4_MAB, 4_PE, 2:4), (4:1))", m), {64, 4}, m, 1);
  const RowScatterTraffic t = row_scatter_traffic(RowList(rows), 4, {0, 0}, b);
  EXPECT_EQ(t.plan.dram_write_bytes, 128u);
  for (const auto& level : t.plan.levels) {
    EXPECT_EQ(level.up_sent_bytes, 128u);
    EXPECT_EQ(level.up_delivered_bytes, 128u);
  }
  EXPECT_EQ(t.plan.levels.back().busiest_up_port_bytes, 16u);  // a MAB's 4 PEs, one row of 4 each
}

std::string check_error(const std::string& text) {
  const machine::MachineConfig m = testing::mini();
  const CheckedProgram c = check_program(parse_program(text, "t.prog", {"L2B", "L1B", "MAB", "PE"}), m);
  return c.ok() ? "" : c.errors.front().message();
}

TEST(RowGather, TheCheckerNamesARowOutsideTheTensor) {
  EXPECT_NE(check_error("tensor X shape=4,2 dtype=int8\nload tensor=X layout=\"((2:2), (2:1))\" rows=1,4\n")
                .find("rows[1] = 4 is not a row of 'X' (4 rows)"),
            std::string::npos);
}

TEST(RowGather, TheCheckerWantsARankTwoTensor) {
  EXPECT_NE(check_error("tensor X shape=8 dtype=int8\nload tensor=X layout=\"((2:1))\" rows=1,4\n")
                .find("needs a rank-2 tensor"),
            std::string::npos);
}

TEST(RowScatter, TheCheckerRefusesARowWrittenTwice) {
  EXPECT_NE(check_error("tensor Y shape=4,2 dtype=int8\nstore tensor=Y layout=\"((2:2), (2:1))\" rows=3,3\n")
                .find("rows[1]: row 3 of 'Y' is written twice"),
            std::string::npos);
}

TEST(RowGather, RowsAndAWindowDoNotGoTogether) {
  EXPECT_THROW(parse_program("tensor X shape=1,2,2,1 dtype=int8\nload tensor=X layout=\"((4:1), (1:1))\" "
                             "window=1,1,1,1,1,1,0,0,2,2,0,1 rows=0\n",
                             "t.prog", {"L2B", "L1B", "MAB", "PE"}),
               ProgramError);
}

}  // namespace row_gather_test
}  // namespace treesim::program
