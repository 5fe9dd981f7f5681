// `treesim run maxpool` and `treesim run avgpool`: windows of 1×1 to 3×3 with strides, padding and
// dilation, int8 and uint8 (and for the average every rounding mode and output type), bit-exact on
// mini, a die and the board, a timing-only run taking the same cycles; and a pass count that the LM
// forces.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace treesim {
namespace {

using testing::run_treesim;
using testing::source_path;

nlohmann::json run_pool(const std::string& kernel, const std::string& machine, std::vector<std::string> args,
                        bool timing_only = false) {
  const std::string text = testing::run_kernel_report(kernel, machine, args, timing_only);
  return text.empty() ? nlohmann::json() : nlohmann::json::parse(text);
}

void pool_grid(const std::string& kernel, const std::string& machine) {
  const bool avg = kernel == "avgpool";
  const char* roundings[] = {"double", "single", "double_upward", "float"};
  int index = 0;
  for (const char* rs : {"1", "2", "3"})
    for (const char* stride : {"1", "2"})
      for (const char* pad : {"0", "same"})
        for (const char* dtype : {"s8", "u8"}) {
          const bool dilated = index++ % 3 == 2;
          SCOPED_TRACE(fmt::format("{}×{} stride {} pad {} {} dilation {}", rs, rs, stride, pad, dtype,
                                   dilated ? 2 : 1));
          std::vector<std::string> args{"--n",        "2",
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
          if (avg)
            args.insert(args.end(), {"--dtype-out", index % 2 ? "u8" : "s8", "--scale",
                                     index % 4 < 2 ? "1" : "0.37", "--rounding", roundings[index % 4]});
          const nlohmann::json full = run_pool(kernel, machine, args);
          if (full.is_null()) continue;
          EXPECT_TRUE(full["verify"]["ok"].get<bool>()) << full["verify"].dump();
          const nlohmann::json timing = run_pool(kernel, machine, args, true);
          if (!timing.is_null()) {
            EXPECT_EQ(timing["cycles"], full["cycles"]);
          }
        }
}

TEST(MaxPoolCli, GridIsBitExactAndTimingOnlyTakesTheSameCyclesOnMini) { pool_grid("maxpool", "mini"); }
TEST(MaxPoolCli, GridIsBitExactAndTimingOnlyTakesTheSameCyclesOnADie) { pool_grid("maxpool", "mncore-die"); }
TEST(MaxPoolCli, GridIsBitExactAndTimingOnlyTakesTheSameCyclesOnTheBoard) {
  pool_grid("maxpool", "mncore-board");
}
TEST(AvgPoolCli, GridIsBitExactAndTimingOnlyTakesTheSameCyclesOnMini) { pool_grid("avgpool", "mini"); }
TEST(AvgPoolCli, GridIsBitExactAndTimingOnlyTakesTheSameCyclesOnADie) { pool_grid("avgpool", "mncore-die"); }
TEST(AvgPoolCli, GridIsBitExactAndTimingOnlyTakesTheSameCyclesOnTheBoard) {
  pool_grid("avgpool", "mncore-board");
}

TEST(MaxPoolCli, MoreWindowsThanTheLmsHoldRunInSeveralPassesAndVerify) {
  // mini: 32 PEs of 64 KiB; a row of 64 channels × 9 taps takes 2·64·10 bytes: 51 rows per PE a pass.
  const nlohmann::json j = run_pool("maxpool", "mini",
                                    {"--n", "2", "--h", "40", "--w", "40", "--c", "64", "--r", "3", "--s",
                                     "3", "--stride", "1", "--pad", "same"});
  ASSERT_FALSE(j.is_null());
  EXPECT_GT(j["passes"].get<std::uint64_t>(), 1u);
  EXPECT_TRUE(j["verify"]["ok"].get<bool>());
}

TEST(AvgPoolCli, MoreWindowsThanTheLmsHoldRunInSeveralPassesAndVerify) {
  // A row of 64 channels × 9 taps takes 2·64·14 bytes with its sums: 36 rows per PE a pass.
  const nlohmann::json j = run_pool("avgpool", "mini",
                                    {"--n", "2", "--h", "40", "--w", "40", "--c", "64", "--r", "3", "--s",
                                     "3", "--stride", "1", "--pad", "same"});
  ASSERT_FALSE(j.is_null());
  EXPECT_GT(j["passes"].get<std::uint64_t>(), 1u);
  EXPECT_TRUE(j["verify"]["ok"].get<bool>());
}

TEST(AvgPoolCli, AScaleThatIsNotAPositiveNumberIsRefusedNamingTheOption) {
  for (const char* scale : {"0", "-1", "x", "nan"}) {
    const auto r = run_treesim({"run", "avgpool", "--machine", source_path("configs/mini.yaml"), "--h", "4",
                                "--w", "4", "--c", "2", "--scale", scale});
    EXPECT_EQ(r.exit_code, 2) << scale;
    EXPECT_NE(r.err.find("--scale"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace treesim
