// Which PEs' requant results the functional model may skip: those no later instruction reads.
#include "models/host/dead_requant.h"

#include <gtest/gtest.h>

#include "sim/layout/parse.h"
#include "sim/machine/machine_file.h"
#include "sim/program/program_text.h"
#include "tests/configs.h"
#include "tests/test_support.h"

namespace treesim::host {
namespace {

// Mini's 32 PEs each hold 4 sums; each L1B's 16 PEs are reduced into its first PE (0 and 16), and
// every PE requantizes (instruction 2); the store reads Y from PEs 0 and 16 only (MAB and PE
// omitted: replica 0 is their unit 0). `after` follows the store.
std::vector<bool> dead_after(const std::string& after) {
  const machine::MachineConfig m = testing::config("mini");
  const std::string text = R"P(
tensor X shape=32,4 dtype=int32
tensor Y shape=2,4 dtype=int8
tensor Z shape=32,4 dtype=int8
load tensor=X layout="((2_L1B, 4_MAB, 4_PE), (4:1))" lm=0
reduce level=L1B src=0 dst=0 count=4
requant src=0 dst=64 rows=1 cols=4 multiplier=1073741824 shift=-1 out_zero=0 out_dtype=int8 act_min=-128 act_max=127
store tensor=Y layout="((2_L1B), (4:1))" lm=64
)P" + after;
  const program::Program p = program::parse_program(text, "dead", layout::level_names(m));
  const program::CheckedProgram checked = program::check_program(p, m);
  EXPECT_TRUE(checked.ok()) << (checked.ok() ? "" : checked.errors.front().message());
  const auto dead = dead_requant_outputs(p, checked, m.pe_count());
  EXPECT_EQ(dead.size(), p.instrs.size());
  for (std::size_t i = 0; i < dead.size(); ++i) {
    if (i != 2) {
      EXPECT_TRUE(dead[i].empty()) << "instruction " << i << " is not a requant";
    }
  }
  return dead[2];
}

std::vector<bool> all_but_first_of_each_l1b() {
  std::vector<bool> want(32, true);
  want[0] = want[16] = false;
  return want;
}

TEST(DeadRequant, ResultsOnlyTheStoreReadsAreLiveInItsPes) {
  EXPECT_EQ(dead_after(""), all_but_first_of_each_l1b());
}

TEST(DeadRequant, ALaterComputeReadKeepsEveryPeLive) {
  EXPECT_TRUE(dead_after("copy src=64 dst=128 bytes=4\n").empty());
}

TEST(DeadRequant, AFullOverwriteBeforeAReadEndsTheResultsLife) {
  EXPECT_EQ(dead_after("copy src=0 dst=64 bytes=4\ncopy src=64 dst=128 bytes=4\n"),
            all_but_first_of_each_l1b());
}

TEST(DeadRequant, APartialOverwriteKeepsTheRestLive) {
  EXPECT_TRUE(dead_after("copy src=0 dst=64 bytes=2\ncopy src=64 dst=128 bytes=4\n").empty());
}

TEST(DeadRequant, AStoreFromEveryPeKeepsEveryPeLive) {
  EXPECT_TRUE(dead_after("store tensor=Z layout=\"((2_L1B, 4_MAB, 4_PE), (4:1))\" lm=64\n").empty());
}

TEST(DeadRequant, ALoadIntoTheResultsIsNotFollowed) {
  EXPECT_TRUE(dead_after("load tensor=Z layout=\"((2_L1B, 4_MAB, 4_PE), (4:1))\" lm=64\n"
                         "copy src=64 dst=128 bytes=4\n")
                  .empty());
}

}  // namespace
}  // namespace treesim::host
