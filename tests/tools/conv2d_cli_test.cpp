// `treesim run conv2d`: the grid (1×1 to 7×7 kernels, strides 1 and 2, padding 0 and same,
// dilation 2, groups 1, 2 and C, odd sizes) bit-exact on mini, an MN-Core die and board, with a
// timing-only run of each taking the same cycles; DRAM reads each input byte once while the links
// carry the windows' overlap; bad inputs are one line.
#include <gtest/gtest.h>

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace treesim {
namespace {

using testing::run_treesim;
using testing::source_path;

nlohmann::json run_conv(const std::string& machine, std::vector<std::string> args, bool timing_only = false) {
  const std::string text = testing::run_kernel_report("conv2d", machine, args, timing_only);
  return text.empty() ? nlohmann::json() : nlohmann::json::parse(text);
}

// Every kernel size, stride, padding and grouping; dilation 2 on every other case. C = 5 and K = 10
// (odd C; groups 5 is depthwise with two filters per channel), 2 images of 15×13.
void grid(const std::string& machine) {
  int index = 0;
  for (const char* rs : {"1", "3", "5", "7"})
    for (const char* stride : {"1", "2"})
      for (const char* pad : {"0", "same"})
        for (const char* groups : {"1", "5", "2"}) {
          const bool dilated = index++ % 2 == 1;
          // Under the sanitizers (ten times slower) every fifth case (5 is prime to the loops: every option
          // still varies).
          if (testing::sanitizer_build() && index % 5 != 0) continue;
          std::vector<std::string> args{"--n",        "2",
                                        "--h",        "15",
                                        "--w",        "13",
                                        "--r",        rs,
                                        "--s",        rs,
                                        "--stride",   stride,
                                        "--pad",      pad,
                                        "--groups",   groups,
                                        "--dilation", dilated ? "2" : "1",
                                        "--seed",     std::to_string(index)};
          // Groups 2 needs even channels: C = 6 and K = 4 there (3 and 2 per group).
          const bool two = std::string(groups) == "2";
          args.insert(args.end(), {"--c", two ? "6" : "5", "--k", two ? "4" : "10"});
          if (index % 3 == 0) args.push_back("--per-channel");
          SCOPED_TRACE(fmt::format("{}×{} stride {} pad {} groups {} dilation {}", rs, rs, stride, pad,
                                   groups, dilated ? 2 : 1));
          const nlohmann::json full = run_conv(machine, args);
          if (full.is_null()) continue;
          EXPECT_TRUE(full["verify"]["ok"].get<bool>()) << full["verify"].dump();
          const nlohmann::json timing = run_conv(machine, args, true);
          if (timing.is_null()) continue;
          EXPECT_EQ(timing["cycles"], full["cycles"]);
          EXPECT_EQ(timing["dram"], full["dram"]);
        }
}

TEST(Conv2dCli, GridIsBitExactAndTimingOnlyTakesTheSameCyclesOnMini) { grid("mini"); }
TEST(Conv2dCli, GridIsBitExactAndTimingOnlyTakesTheSameCyclesOnADie) { grid("mncore-die"); }
TEST(Conv2dCli, GridIsBitExactAndTimingOnlyTakesTheSameCyclesOnTheBoard) { grid("mncore-board"); }

TEST(Conv2dCli, DramReadsEachInputByteOnceAndTheLinksCarryTheOverlap) {
  // One pass and one K step: A's loads read the input once; a 3×3 window repeats each pixel ~9 times.
  const nlohmann::json j =
      run_conv("mini", {"--h", "9", "--w", "7", "--c", "3", "--k", "4", "--pad", "same", "--no-bias"});
  ASSERT_FALSE(j.is_null());
  ASSERT_EQ(j["passes"], 1);
  ASSERT_EQ(j["k_steps"], 1);
  const std::uint64_t input = 9 * 7 * 3, weights = 27 * 4;
  EXPECT_EQ(j["input_bytes"], input);
  EXPECT_EQ(j["dram"]["read_bytes"], input + weights);
  EXPECT_GT(j["levels"]["L2B"]["down_sent_bytes"].get<std::uint64_t>(), 5 * input + weights);
}

TEST(Conv2dCli, StridedOneByOneReadsOnlyThePixelsItUses) {
  // A 1×1 kernel with stride 2 touches every other row and column: a quarter of a 8×8 image.
  const nlohmann::json j = run_conv("mini", {"--h", "8", "--w", "8", "--c", "4", "--k", "2", "--r", "1",
                                             "--s", "1", "--stride", "2", "--no-bias"});
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["dram"]["read_bytes"], 4 * 4 * 4 + 4 * 2);
}

TEST(Conv2dCli, BadInputsAreOneLineNamingTheOption) {
  const std::string mini = source_path("configs/mini.yaml");
  for (const auto& [args, expect] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--h", "8", "--w", "8", "--c", "6", "--k", "4", "--groups", "4"}, "--groups"},
           {{"--h", "8", "--w", "8", "--c", "6", "--k", "5", "--groups", "3"}, "--groups"},
           {{"--h", "4", "--w", "8", "--c", "2", "--k", "2", "--r", "7", "--s", "1"}, "--r"},
           {{"--h", "8", "--w", "8", "--c", "2", "--k", "2", "--pad", "two"}, "--pad"},
           {{"--h", "8", "--w", "8", "--c", "2", "--k", "2", "--stride", "0"}, "--stride"},
           {{"--h", "8", "--w", "8", "--k", "2"}, "--c"},
           {{"--h", "100000", "--w", "100000", "--c", "1000", "--k", "2"}, "DRAM"},
       }) {
    std::vector<std::string> all{"run", "conv2d", "--machine", mini};
    all.insert(all.end(), args.begin(), args.end());
    const auto r = run_treesim(all);
    EXPECT_NE(r.exit_code, 0) << r.out;
    EXPECT_NE(r.err.find(expect), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

TEST(Conv2dCli, AMachineWithDramChannelsPerGroupIsRefused) {
  const auto r = run_treesim({"run", "conv2d", "--machine", source_path("configs/mncore2.yaml"), "--h", "8",
                              "--w", "8", "--c", "2", "--k", "2"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("one DRAM channel"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace treesim
