// `treesim run chain` with the activations in the LMs: bit-exact, DRAM carries only the input, the
// weights and the output, never slower than --via-dram, and the plan's estimate within 5% of the
// run; an activation that does not fit goes through DRAM and the plan says why.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/test_support.h"
#include "tests/tools/verified_run.h"

namespace treesim::testing {
namespace {

using json = nlohmann::json;

struct Chain {
  const char* machine;
  std::uint64_t m;
  std::vector<std::uint64_t> widths;
};

void PrintTo(const Chain& c, std::ostream* os) {
  *os << c.machine << " m " << c.m << " widths";
  for (auto w : c.widths) *os << " " << w;
}

std::vector<std::string> args(const Chain& c) {
  std::string widths;
  for (auto w : c.widths) widths += (widths.empty() ? "" : ",") + std::to_string(w);
  return {"--m", std::to_string(c.m), "--widths", widths};
}

// The input, every layer's weights and int32 bias.
std::uint64_t input_bytes(const Chain& c) {
  std::uint64_t bytes = c.m * c.widths[0];
  for (std::size_t i = 0; i + 1 < c.widths.size(); ++i)
    bytes += c.widths[i] * c.widths[i + 1] + 4 * c.widths[i + 1];
  return bytes;
}

class ChainOnChip : public ::testing::TestWithParam<Chain> {};

TEST_P(ChainOnChip, IsBitExactMovesOnlyInputsWeightsAndOutputsAndBeatsDram) {
  const Chain& c = GetParam();
  json on = run_verified("chain", c.machine, args(c));
  ASSERT_FALSE(on.is_null());
  EXPECT_EQ(on["activations_in_lm"], c.widths.size() - 2);
  EXPECT_EQ(on["dram"]["read_bytes"], input_bytes(c));
  EXPECT_EQ(on["dram"]["write_bytes"], c.m * c.widths.back());
  std::vector<std::string> dram_args = args(c);
  dram_args.push_back("--via-dram");
  json via = run_verified("chain", c.machine, dram_args);
  ASSERT_FALSE(via.is_null());
  EXPECT_LT(on["cycles"].get<std::uint64_t>(), via["cycles"].get<std::uint64_t>());
  EXPECT_GT(via["dram"]["read_bytes"].get<std::uint64_t>(), input_bytes(c));
}

TEST_P(ChainOnChip, EstimateIsWithinFivePercentOfTheRun) {
  const Chain& c = GetParam();
  json on = run_verified("chain", c.machine, args(c));
  ASSERT_FALSE(on.is_null());
  const double run = on["cycles"].get<double>(), estimate = on["estimated_cycles"].get<double>();
  EXPECT_NEAR(estimate / run, 1.0, 0.05) << "estimate " << estimate << ", run " << run;
}

TEST_P(ChainOnChip, ReportsEveryLayerAndConversion) {
  const Chain& c = GetParam();
  json on = run_verified("chain", c.machine, args(c));
  ASSERT_FALSE(on.is_null());
  const std::size_t layers = c.widths.size() - 1;
  for (std::size_t i = 0; i < layers; ++i) {
    const std::string layer = "layer" + std::to_string(i);
    ASSERT_TRUE(on["phases"].contains(layer)) << on["phases"].dump();
    EXPECT_GT(on["phases"][layer]["cycles"].get<std::uint64_t>(), 0u);
    EXPECT_GT(on["phases"][layer]["lm_bytes_per_pe"].get<std::uint64_t>(), 0u);
    if (i + 1 == layers) continue;
    const json& convert = on["phases"][layer + ".convert"];
    ASSERT_FALSE(convert.is_null()) << on["phases"].dump();
    EXPECT_EQ(convert["dram"]["read_bytes"], 0u);  // on the tree only
    EXPECT_EQ(convert["dram"]["write_bytes"], 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Machines, ChainOnChip,
                         ::testing::Values(Chain{"mini", 32, {64, 128, 128, 32}},
                                           Chain{"mini", 8, {128, 32, 96, 8}},
                                           Chain{"mncore-die", 32, {64, 128, 128, 32}},
                                           Chain{"mncore-die", 16, {24, 40, 32}},
                                           Chain{"mncore-board", 32, {64, 128, 128, 32}}));

TEST(ChainOnChip, AnActivationThatDoesNotFitGoesThroughDramAndThePlanSaysWhy) {
  // mini's 64 KiB LM: a 4096×512 activation is 64 KiB per PE on its own.
  const std::string report = temp_path("chain-spill.json");
  CliResult r = run_treesim({"run", "chain", "--machine", source_path("configs/mini.yaml"), "--m", "4096",
                             "--widths", "64,512,16", "--timing-only", "--report", report});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("X1 → layer 1: DRAM ("), std::string::npos) << r.out;
  json j = json::parse(read_text(report));
  EXPECT_EQ(j["activations_in_lm"], 0u);
}

TEST(ChainOnChip, TunedPlanFileRunsInTheTunedEstimate) {
  const std::string spec = write_temp_file("chain-mlp.yaml", "m: 32\nwidths: [64, 128, 128, 32]\n");
  const std::string plan = temp_path("chain-mlp-plan.yaml");
  CliResult t = run_treesim(
      {"tune", "chain", spec, "--machine", source_path("configs/mini.yaml"), "--out", plan, "--json"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  const json tuned = json::parse(t.out);
  EXPECT_EQ(tuned["activations"], "lm");
  json run = run_verified("chain", "mini", {"--spec", spec, "--plan-file", plan});
  ASSERT_FALSE(run.is_null());
  EXPECT_EQ(run["estimated_cycles"].get<double>(), std::round(tuned["estimated_cycles"].get<double>()));
  EXPECT_NEAR(run["cycles"].get<double>() / tuned["estimated_cycles"].get<double>(), 1.0, 0.05);
}

}  // namespace
}  // namespace treesim::testing
