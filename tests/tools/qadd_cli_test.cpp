// `treesim run qadd`: operand and output types, zero points, scales and activations over sizes that
// fill a pass, leave a short last block, or take several passes, bit-exact on mini, a die and the
// board, a timing-only run taking the same cycles; and bad scales refused naming the option.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace treesim {
namespace {

using testing::run_treesim;
using testing::source_path;

nlohmann::json run_qadd(const std::string& machine, const std::vector<std::string>& args,
                        bool timing_only = false) {
  const std::string text = testing::run_kernel_report("qadd", machine, args, timing_only);
  return text.empty() ? nlohmann::json() : nlohmann::json::parse(text);
}

void qadd_grid(const std::string& machine) {
  int index = 0;
  for (const char* n : {"1", "1000", "100003"})
    for (const char* types : {"s8", "u8"})
      for (const char* act : {"none", "relu"}) {
        ++index;
        SCOPED_TRACE(fmt::format("n {} {} act {}", n, types, act));
        const std::vector<std::string> args{"--n",         n,
                                            "--dtype-a",   types,
                                            "--dtype-b",   index % 3 ? "s8" : "u8",
                                            "--dtype-out", index % 2 ? "u8" : "s8",
                                            "--a-scale",   index % 2 ? "0.37" : "1.5",
                                            "--b-scale",   "0.81",
                                            "--act",       act,
                                            "--seed",      std::to_string(index)};
        const nlohmann::json full = run_qadd(machine, args);
        if (full.is_null()) continue;
        EXPECT_TRUE(full["verify"]["ok"].get<bool>()) << full["verify"].dump();
        const nlohmann::json timing = run_qadd(machine, args, true);
        if (!timing.is_null()) {
          EXPECT_EQ(timing["cycles"], full["cycles"]);
        }
      }
}

TEST(QaddCli, GridIsBitExactAndTimingOnlyTakesTheSameCyclesOnMini) { qadd_grid("mini"); }
TEST(QaddCli, GridIsBitExactAndTimingOnlyTakesTheSameCyclesOnADie) { qadd_grid("mncore-die"); }
TEST(QaddCli, GridIsBitExactAndTimingOnlyTakesTheSameCyclesOnTheBoard) { qadd_grid("mncore-board"); }

TEST(QaddCli, MoreElementsThanTheLmsHoldRunInSeveralPassesAndVerify) {
  // mini: 32 PEs of 64 KiB at 6 bytes an element: 10,922 elements per PE a pass.
  const nlohmann::json j = run_qadd("mini", {"--n", "1000000"});
  ASSERT_FALSE(j.is_null());
  EXPECT_GT(j["passes"].get<std::uint64_t>(), 1u);
  EXPECT_TRUE(j["verify"]["ok"].get<bool>());
}

TEST(QaddCli, AScaleThatIsNotAPositiveNumberIsRefusedNamingTheOption) {
  for (const char* scale : {"0", "-1", "x", "inf", "3e38"}) {
    const auto r = run_treesim(
        {"run", "qadd", "--machine", source_path("configs/mini.yaml"), "--n", "4", "--b-scale", scale});
    EXPECT_EQ(r.exit_code, 2) << scale;
    EXPECT_NE(r.err.find("--b-scale"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace treesim
