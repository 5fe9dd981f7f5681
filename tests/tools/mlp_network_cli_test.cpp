// `treesim run mlp` as one program per batch: the committed Fashion-MNIST models (int8 and ternary)
// on mini, mncore-die and mncore-board keep their activations in the LMs, stay bit-exact, move only
// the images, the weights (with their bias and requantization vectors) and the logits through DRAM,
// are faster than --via-dram, and run within 5% of the plan's estimate.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace treesim {
namespace {

using testing::data_path;
using testing::source_path;

struct Case {
  const char *machine, *model;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.machine << " " << c.model; }

nlohmann::json run(const Case& c, std::vector<std::string> extra) {
  static int n = 0;
  const std::string report = testing::temp_path("mlp-net-" + std::to_string(n++) + ".json");
  std::vector<std::string> args{"run",       "mlp",
                                "--model",   data_path(std::string("mlp/") + c.model),
                                "--machine", source_path(std::string("configs/") + c.machine + ".yaml"),
                                "--data",    data_path("mlp/t10k-16"),
                                "--images",  "16",
                                "--report",  report,
                                "-q"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = testing::run_treesim(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return {};
  return nlohmann::json::parse(testing::read_text(report));
}

// What DRAM must carry for the committed 784-256-128-10 models: the images, every layer's weights
// as they travel (DPT-packed, 5 per byte, for the ternary model), its int32 bias, multipliers and
// shifts, and the logits.
std::pair<std::uint64_t, std::uint64_t> dram_bytes(bool ternary, std::uint64_t images) {
  const std::uint64_t widths[] = {784, 256, 128, 10};
  std::uint64_t read = images * widths[0];
  for (int l = 0; l < 3; ++l) {
    const std::uint64_t k = widths[l], n = widths[l + 1];
    read += (ternary ? (k + 4) / 5 * n : k * n) + 3 * 4 * n;
  }
  return {read, images * widths[3]};
}

class MlpNetwork : public ::testing::TestWithParam<Case> {};
class MlpOnChip : public ::testing::TestWithParam<Case> {};

TEST_P(MlpOnChip, KeepsActivationsOnChipBitExactAndMovesOnlyImagesWeightsAndLogits) {
  const Case& c = GetParam();
  const nlohmann::json j = run(c, {});
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["reference_agrees"], 16);
  EXPECT_EQ(j["activations"], "lm");
  EXPECT_EQ(j["activations_in_lm"], 2);
  std::uint64_t read = 0, written = 0;
  for (const auto& layer : j["layers"]) {
    read += layer["dram_read_bytes"].get<std::uint64_t>();
    written += layer["dram_write_bytes"].get<std::uint64_t>();
  }
  const auto [want_read, want_written] = dram_bytes(std::string(c.model) == "ternary", 16);
  EXPECT_EQ(read, want_read);
  EXPECT_EQ(written, want_written);
}

TEST(MlpNetworkReason, ARunThroughDramSaysWhyInItsReport) {
  // Mini's ternary MLP at 16 images: its default plans through DRAM beat every on-chip path.
  const nlohmann::json j = run({"mini", "ternary"}, {});
  ASSERT_FALSE(j.is_null());
  EXPECT_EQ(j["activations_in_lm"], 0);
  EXPECT_EQ(j["dram_reason"].get<std::string>().rfind("faster by estimate: ", 0), 0u) << j["dram_reason"];
  EXPECT_TRUE(run({"mini", "int8"}, {})["dram_reason"].is_null());  // both in the LMs
}

TEST_P(MlpNetwork, IsFasterThanEveryActivationThroughDram) {
  const Case& c = GetParam();
  const nlohmann::json on = run(c, {}), via = run(c, {"--via-dram"});
  ASSERT_FALSE(on.is_null());
  ASSERT_FALSE(via.is_null());
  EXPECT_EQ(via["activations"], "dram");
  EXPECT_LT(on["cycles"].get<std::uint64_t>(), via["cycles"].get<std::uint64_t>());
  EXPECT_EQ(on["correct"], via["correct"]);
}

TEST_P(MlpNetwork, RunsWithinFivePercentOfThePlansEstimate) {
  const Case& c = GetParam();
  const nlohmann::json j = run(c, {});
  ASSERT_FALSE(j.is_null());
  EXPECT_NEAR(j["estimated_cycles"].get<double>() / j["cycles"].get<double>(), 1.0, 0.05)
      << j["estimated_cycles"] << " estimated, " << j["cycles"] << " run";
}

TEST_P(MlpNetwork, LayerSpansAndConversionsCoverTheRun) {
  const Case& c = GetParam();
  const nlohmann::json j = run(c, {});
  ASSERT_FALSE(j.is_null());
  std::uint64_t spans = 0;
  for (const auto& layer : j["layers"]) {
    EXPECT_LE(layer["cycles"].get<std::uint64_t>(), j["cycles"].get<std::uint64_t>());
    spans += layer["cycles"].get<std::uint64_t>() + layer["convert_cycles"].get<std::uint64_t>();
  }
  EXPECT_GE(spans, j["cycles"].get<std::uint64_t>());
}

// Not mini's ternary MLP: at 16 images its default plans through DRAM, one level shared by M and N,
// beat every on-chip path (3,767 cycles run; 3,894 on chip before shared levels).
INSTANTIATE_TEST_SUITE_P(Machines, MlpOnChip,
                         ::testing::Values(Case{"mini", "int8"}, Case{"mncore-die", "int8"},
                                           Case{"mncore-die", "ternary"}, Case{"mncore-board", "int8"},
                                           Case{"mncore-board", "ternary"}));
INSTANTIATE_TEST_SUITE_P(Machines, MlpNetwork,
                         ::testing::Values(Case{"mini", "int8"}, Case{"mini", "ternary"},
                                           Case{"mncore-die", "int8"}, Case{"mncore-die", "ternary"},
                                           Case{"mncore-board", "int8"}, Case{"mncore-board", "ternary"}));

}  // namespace
}  // namespace treesim
