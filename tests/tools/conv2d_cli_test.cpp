// `treesim run conv2d`: the grid (1×1 to 7×7 kernels, strides 1 and 2, padding 0 and same,
// dilation 2, groups 1, 2 and C, odd sizes) bit-exact on mini, an MN-Core die and board, with a
// timing-only run of each taking the same cycles; DRAM reads each input byte once while the links
// carry the windows' overlap; bad inputs are one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>
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
// `windows`: how the windows travel (--windows).
void grid(const std::string& machine, const std::string& windows = "auto") {
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
                                        "--seed",     std::to_string(index),
                                        "--windows",  windows};
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
TEST(Conv2dCli, GridWithIm2colLoadsIsBitExactOnMini) { grid("mini", "im2col"); }
TEST(Conv2dCli, GridWithHaloLoadsIsBitExactOnMini) { grid("mini", "halo"); }
TEST(Conv2dCli, GridWithHaloLoadsIsBitExactOnADie) { grid("mncore-die", "halo"); }
TEST(Conv2dCli, GridWithHaloLoadsIsBitExactOnTheBoard) { grid("mncore-board", "halo"); }

TEST(Conv2dCli, DramReadsEachInputByteOnceAndTheLinksCarryTheOverlap) {
  // One pass and one K step: A's loads read the input once; a 3×3 window repeats each pixel ~9 times.
  const nlohmann::json j = run_conv("mini", {"--h", "9", "--w", "7", "--c", "3", "--k", "4", "--pad", "same",
                                             "--no-bias", "--windows", "im2col"});
  ASSERT_FALSE(j.is_null());
  ASSERT_EQ(j["passes"], 1);
  ASSERT_EQ(j["k_steps"], 1);
  const std::uint64_t input = 9 * 7 * 3, weights = 27 * 4;
  EXPECT_EQ(j["input_bytes"], input);
  EXPECT_EQ(j["dram"]["read_bytes"], input + weights);
  EXPECT_GT(j["levels"]["L2B"]["down_sent_bytes"].get<std::uint64_t>(), 5 * input + weights);
}

TEST(Conv2dCli, HaloLoadsCarryEachInputByteOnceOverTheFirstLinks) {
  // The same convolution with halos: the board sends the input once; below, each unit receives its
  // distinct elements, fewer than im2col's slots; DRAM reads the same.
  std::vector<std::string> args{"--h", "9", "--w",   "7",    "--c",       "3",
                                "--k", "4", "--pad", "same", "--no-bias", "--windows"};
  const nlohmann::json halo = run_conv("mini", [&] {
    auto a = args;
    a.push_back("halo");
    return a;
  }());
  const nlohmann::json im2col = run_conv("mini", [&] {
    auto a = args;
    a.push_back("im2col");
    return a;
  }());
  ASSERT_FALSE(halo.is_null());
  ASSERT_FALSE(im2col.is_null());
  ASSERT_EQ(halo["k_steps"], 1);
  const std::uint64_t input = 9 * 7 * 3, weights = 27 * 4;
  EXPECT_EQ(halo["info"]["windows"], "halo");
  EXPECT_EQ(halo["dram"]["read_bytes"], im2col["dram"]["read_bytes"]);
  EXPECT_EQ(halo["levels"]["L2B"]["down_sent_bytes"], input + weights);
  for (const char* level : {"L1B", "MAB", "PE"})
    EXPECT_LT(halo["levels"][level]["down_delivered_bytes"].get<std::uint64_t>(),
              im2col["levels"][level]["down_delivered_bytes"].get<std::uint64_t>())
        << level;
  EXPECT_GT(halo["units"]["copy"]["busy_cycles"].get<std::uint64_t>(), 0u);
}

// The planner's choice is the faster on the machine: with --windows auto, a convolution takes the
// cycles of the faster of its im2col and halo runs wherever they differ by more than a tenth, and is
// never more than 6% (the estimates' error on these shapes) slower where they are close.
TEST(Conv2dCli, TheWindowsThePlannerChoosesAreTheFasterOnTheMachine) {
  for (const auto& [machine, shape] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {"mncore-die", {"--h", "56", "--w", "56", "--c", "64", "--k", "64", "--pad", "same"}},
           {"mncore-die", {"--h", "28", "--w", "28", "--c", "32", "--k", "64", "--r", "1", "--s", "1"}},
           {"mncore-die",
            {"--h", "28", "--w", "28", "--c", "32", "--k", "32", "--groups", "32", "--pad", "same"}},
           {"mncore-board",
            {"--h", "28", "--w", "28", "--c", "16", "--k", "32", "--r", "5", "--s", "5", "--stride", "2"}},
           {"mini", {"--h", "15", "--w", "13", "--c", "5", "--k", "10", "--pad", "same"}},
       }) {
    SCOPED_TRACE(machine + " " + fmt::format("{}", fmt::join(shape, " ")));
    std::map<std::string, std::uint64_t> cycles;
    std::map<std::string, std::string> chosen;
    for (const char* windows : {"auto", "im2col", "halo"}) {
      std::vector<std::string> args = shape;
      args.insert(args.end(), {"--windows", windows});
      const nlohmann::json j = run_conv(machine, args, true);
      ASSERT_FALSE(j.is_null());
      cycles[windows] = j["cycles"].get<std::uint64_t>();
      chosen[windows] = j["info"]["windows"].get<std::string>();
    }
    const std::uint64_t fast = std::min(cycles["im2col"], cycles["halo"]);
    const std::uint64_t slow = std::max(cycles["im2col"], cycles["halo"]);
    const std::string what = "auto chose " + chosen["auto"] + ": im2col " + std::to_string(cycles["im2col"]) +
                             ", halo " + std::to_string(cycles["halo"]);
    if (slow * 10 > fast * 11)
      EXPECT_EQ(cycles["auto"], fast) << what;
    else
      EXPECT_LE(cycles["auto"] * 100, fast * 106) << what;
  }
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
           {{"--h", "8", "--w", "8", "--c", "2", "--k", "2", "--windows", "diagonal"}, "--windows"},
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

TEST(Conv2dCli, HaloLoadsWhosePatchesDoNotFitTheLmAreOneLineNamingTheOption) {
  // The die with an 8 KiB LM: the planner's tiles leave no room for the two patch buffers.
  std::ifstream in(source_path("configs/mncore-die.yaml"));
  std::string die((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::size_t pe = die.find("memory_bytes", die.find("name: PE"));
  die.replace(pe, die.find('\n', pe) - pe, "memory_bytes: 8KiB");
  const std::string machine = testing::temp_path("die-8k.yaml");
  std::ofstream(machine) << die;
  const auto r = run_treesim({"run", "conv2d", "--machine", machine, "--h", "14", "--w", "14", "--c", "512",
                              "--k", "512", "--pad", "same", "--windows", "halo"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("--windows: halo refused: its two patch buffers need"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(Conv2dCli, AMachineWithDramChannelsPerGroupIsRefused) {
  const auto r = run_treesim({"run", "conv2d", "--machine", source_path("configs/mncore2.yaml"), "--h", "8",
                              "--w", "8", "--c", "2", "--k", "2"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("one DRAM channel"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace treesim
