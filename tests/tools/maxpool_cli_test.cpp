// `treesim run maxpool`: windows of 1×1 to 3×3 with strides, padding and dilation, int8 and uint8,
// bit-exact on mini, a die and the board, a timing-only run taking the same cycles; and a pass
// count that the LM forces.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace treesim {
namespace {

using testing::run_treesim;
using testing::source_path;

nlohmann::json run_pool(const std::string& machine, std::vector<std::string> args, bool timing_only = false) {
  const std::string text = testing::run_kernel_report("maxpool", machine, args, timing_only);
  return text.empty() ? nlohmann::json() : nlohmann::json::parse(text);
}

void grid(const std::string& machine) {
  int index = 0;
  for (const char* rs : {"1", "2", "3"})
    for (const char* stride : {"1", "2"})
      for (const char* pad : {"0", "same"})
        for (const char* dtype : {"s8", "u8"}) {
          const bool dilated = index++ % 3 == 2;
          SCOPED_TRACE(fmt::format("{}×{} stride {} pad {} {} dilation {}", rs, rs, stride, pad, dtype,
                                   dilated ? 2 : 1));
          const std::vector<std::string> args{"--n",        "2",
                                              "--h",        "11",
                                              "--w",        "9",
                                              "--c",        "5",
                                              "--r",        rs,
                                              "--s",        rs,
                                              "--stride",   stride,
                                              "--pad",      pad,
                                              "--dtype",    dtype,
                                              "--dilation", dilated ? "2" : "1",
                                              "--seed",     std::to_string(index)};
          const nlohmann::json full = run_pool(machine, args);
          if (full.is_null()) continue;
          EXPECT_TRUE(full["verify"]["ok"].get<bool>()) << full["verify"].dump();
          const nlohmann::json timing = run_pool(machine, args, true);
          if (!timing.is_null()) {
            EXPECT_EQ(timing["cycles"], full["cycles"]);
          }
        }
}

TEST(MaxPoolCli, GridIsBitExactAndTimingOnlyTakesTheSameCyclesOnMini) { grid("mini"); }
TEST(MaxPoolCli, GridIsBitExactAndTimingOnlyTakesTheSameCyclesOnADie) { grid("mncore-die"); }
TEST(MaxPoolCli, GridIsBitExactAndTimingOnlyTakesTheSameCyclesOnTheBoard) { grid("mncore-board"); }

TEST(MaxPoolCli, MoreWindowsThanTheLmsHoldRunInSeveralPassesAndVerify) {
  // mini: 32 PEs of 64 KiB; a row of 64 channels × 9 taps takes 2·64·10 bytes: 51 rows per PE a pass.
  const nlohmann::json j = run_pool("mini", {"--n", "2", "--h", "40", "--w", "40", "--c", "64", "--r", "3",
                                             "--s", "3", "--stride", "1", "--pad", "same"});
  ASSERT_FALSE(j.is_null());
  EXPECT_GT(j["passes"].get<std::uint64_t>(), 1u);
  EXPECT_TRUE(j["verify"]["ok"].get<bool>());
}

}  // namespace
}  // namespace treesim
