// `treesim run mlp`: the committed Fashion-MNIST models (tests/data/mlp) on 16 test images on mini,
// every layer bit-exact and the predictions equal to the host reference's; the report's figures
// add up; bad inputs (a truncated IDX file, a wrong magic, a plan file naming no layer) are one line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace treesim {
namespace {

using testing::data_path;
using testing::run_treesim;
using testing::source_path;

std::vector<std::string> mlp_args(const std::string& model, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"run",       "mlp",
                                "--model",   data_path("mlp/" + model),
                                "--machine", source_path("configs/mini.yaml"),
                                "--data",    data_path("mlp/t10k-16")};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

nlohmann::json run_report(const std::string& model, std::vector<std::string> extra) {
  static int n = 0;
  const std::string report = testing::temp_path("mlp-" + std::to_string(n++) + ".json");
  extra.insert(extra.end(), {"--report", report});
  const auto r = run_treesim(mlp_args(model, extra));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return {};
  return nlohmann::json::parse(testing::read_text(report));
}

TEST(MlpCli, Int8ModelMatchesTheHostReferenceOnEveryImage) {
  const nlohmann::json j = run_report("int8", {"--images", "16", "--batch", "6"});
  EXPECT_EQ(j["images"], 16);
  EXPECT_EQ(j["batches"], 3);
  EXPECT_EQ(j["reference_agrees"], 16);
  // 15 of the 16 images are classified right by this model (its host reference says the same).
  EXPECT_EQ(j["correct"], 15);
}

TEST(MlpCli, TernaryModelRunsEveryLayerOnTgemm) {
  const nlohmann::json j = run_report("ternary", {"--images", "16"});
  EXPECT_EQ(j["reference_agrees"], 16);
  for (const auto& layer : j["layers"]) EXPECT_EQ(layer["kind"], "ternary");
}

TEST(MlpCli, LayerFiguresAddUpToTheRunThroughDram) {
  const nlohmann::json j = run_report("int8", {"--images", "10", "--batch", "4", "--via-dram"});
  std::uint64_t cycles = 0, macs = 0;
  for (const auto& layer : j["layers"]) {
    cycles += layer["cycles"].get<std::uint64_t>();
    macs += layer["macs"].get<std::uint64_t>();
  }
  EXPECT_EQ(j["cycles"].get<std::uint64_t>(), cycles);
  EXPECT_EQ(macs, 10u * (784 * 256 + 256 * 128 + 128 * 10));
}

TEST(MlpCli, SummaryStatesBitExactnessAndAccuracy) {
  const auto r = run_treesim(mlp_args("int8", {"--images", "4"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("predictions equal the host reference's on 4 of 4 images"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("accuracy 100.00% (4 of 4)"), std::string::npos) << r.out;
}

TEST(MlpCli, QuietPrintsNothing) {
  const auto r = run_treesim(mlp_args("int8", {"--images", "4", "-q"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(MlpCli, TimingOnlyGivesTheFullRunsCyclesAndNoAccuracy) {
  const nlohmann::json full = run_report("ternary", {"--images", "10", "--batch", "4"});
  const nlohmann::json timing = run_report("ternary", {"--images", "10", "--batch", "4", "--timing-only"});
  EXPECT_EQ(timing["functional"], false);
  EXPECT_EQ(full["functional"], true);
  EXPECT_EQ(timing["cycles"], full["cycles"]);
  for (std::size_t l = 0; l < full["layers"].size(); ++l)
    EXPECT_EQ(timing["layers"][l]["cycles"], full["layers"][l]["cycles"]);
  EXPECT_TRUE(timing["accuracy"].is_null());
  EXPECT_TRUE(timing["correct"].is_null());
}

TEST(MlpCli, TraceFileIsOneLineError) {
  const auto r = run_treesim(mlp_args("int8", {"--images", "4", "--vcd", testing::temp_path("mlp.vcd")}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(
      r.err,
      "treesim: --vcd: run mlp simulates every layer of every batch as its own program; trace one layer "
      "with run qgemm or run tgemm\n");
}

TEST(MlpCli, OutWritesThePredictedClasses) {
  const std::string out = testing::temp_path("mlp-classes.npy");
  const auto r = run_treesim(mlp_args("int8", {"--images", "4", "-q", "--out", out}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string bytes = testing::read_text(out);
  // A uint8 .npy of shape (4,): the header, then the classes. The model gets these 4 images right
  // (SummaryStatesBitExactnessAndAccuracy), so they are the labels: 9, 2, 1, 1.
  EXPECT_NE(bytes.find("'descr': '|u1'"), std::string::npos);
  EXPECT_NE(bytes.find("'shape': (4,)"), std::string::npos);
  ASSERT_GE(bytes.size(), 4u);
  EXPECT_EQ(bytes.substr(bytes.size() - 4), std::string("\x09\x02\x01\x01", 4));
}

// A chain plan of `treesim tune chain` for the network's shapes on 16 images.
std::string chain_plan_file() {
  const std::string spec = testing::write_temp_file("mlp16.yaml", "m: 16\nwidths: [784, 256, 128, 10]\n");
  const std::string plan = testing::temp_path("chain16.yaml");
  const auto r =
      run_treesim({"tune", "chain", spec, "--machine", source_path("configs/mini.yaml"), "--out", plan});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return plan;
}

TEST(MlpCli, ChainPlanFileRunsEveryLayerBitExactAsTheInProcessChainPlan) {
  // Each layer its own run (--via-dram), laid out by the chain plan: the file's or the one planned here.
  const nlohmann::json file =
      run_report("ternary", {"--images", "16", "--via-dram", "--plan-file", chain_plan_file()});
  const nlohmann::json here = run_report("ternary", {"--images", "16", "--via-dram", "--chain-plan"});
  EXPECT_EQ(file["reference_agrees"], 16);
  EXPECT_EQ(file["cycles"], here["cycles"]);
  for (std::size_t l = 0; l < 3; ++l) EXPECT_EQ(file["layers"][l]["cycles"], here["layers"][l]["cycles"]);
}

TEST(MlpCli, ChainPlanFileRunsTheNetworkAsOneProgramWithItsActivationsInTheLms) {
  const nlohmann::json r = run_report("ternary", {"--images", "16", "--plan-file", chain_plan_file()});
  EXPECT_EQ(r["reference_agrees"], 16);
  EXPECT_EQ(r["activations"], "lm");
  EXPECT_EQ(r["activations_in_lm"], 2);
}

TEST(MlpCli, ChainPlanWithoutViaDramIsRefused) {
  const auto r = run_treesim(mlp_args("int8", {"--images", "4", "--chain-plan"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "treesim: --chain-plan: the chain plan is the default; with --via-dram it lays out each layer's "
            "own run\n");
}

TEST(MlpCli, ChainPlanForAnotherBatchIsOneLineError) {
  const std::string plan = chain_plan_file();
  const auto r = run_treesim(mlp_args("int8", {"--images", "8", "--plan-file", plan}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "treesim: " + plan + ": layer 0: the plan is for m = 16, the problem has 8\n");
}

TEST(MlpCli, ChainPlanAndPlanFileTogetherAreRefused) {
  const auto r = run_treesim(mlp_args("int8", {"--images", "4", "--chain-plan", "--plan-file", "x.yaml"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "treesim: --chain-plan: give it or --plan-file, not both (a chain plan file is already a chain "
            "plan)\n");
}

TEST(MlpCli, PlanFileLayoutsReplaceThePlannersChoice) {
  // fc3 on 4 images with every N column in one PE: not what the planner picks (it spreads N over
  // L1B and MAB), so the layer takes other cycles, and stays bit-exact.
  const std::string plan = testing::write_temp_file(
      "plan.yaml",
      "layers:\n  fc3:\n    a: \"((4_PE, 1:128), (128:1))\"\n    b: \"((128:10), (10:1))\"\n"
      "    c: \"((4_PE, 1:10), (10:1))\"\n");
  const nlohmann::json planned = run_report("int8", {"--images", "4", "--via-dram"});
  const nlohmann::json given = run_report("int8", {"--images", "4", "--plan-file", plan});
  EXPECT_EQ(given["reference_agrees"], 4);
  EXPECT_EQ(given["layers"][0]["cycles"], planned["layers"][0]["cycles"]);
  EXPECT_NE(given["layers"][2]["cycles"], planned["layers"][2]["cycles"]);
}

TEST(MlpCli, PlanFileLayoutThatCannotWorkNamesTheLayer) {
  const std::string plan =
      testing::write_temp_file("bad-plan.yaml", "layers:\n  fc3:\n    c: \"((4:10), (10_PE))\"\n");
  const auto r = run_treesim(mlp_args("int8", {"--images", "4", "--plan-file", plan}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.rfind("treesim: fc3, images 0..3: --layout-c: invalid layout:", 0), 0u) << r.err;
}

TEST(MlpCli, PlanFileNamingNoLayerIsOneLineError) {
  const std::string plan = testing::write_temp_file("plan.yaml", "layers:\n  fc9: { a: \"x\" }\n");
  const auto r = run_treesim(mlp_args("int8", {"--plan-file", plan}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "treesim: " + plan + ":2: field 'layers.fc9': the model has no layer 'fc9'\n");
}

TEST(MlpCli, TruncatedImagesFileIsOneLineError) {
  const std::string dir = testing::temp_path("truncated");
  std::string bytes("\0\0\x08\x03\0\0\0\x10\0\0\0\x1c\0\0\0\x1c", 16);
  bytes += std::string(100, '\0');
  testing::write_temp_file("truncated-images", bytes);
  const std::string images = testing::temp_path("truncated-images");
  ASSERT_EQ(
      std::system(("mkdir -p " + dir + " && cp " + images + " " + dir + "/t10k-images-idx3-ubyte && cp " +
                   data_path("mlp/t10k-16/t10k-labels-idx1-ubyte") + " " + dir)
                      .c_str()),
      0);
  auto args = mlp_args("int8");
  args[args.size() - 1] = dir;
  const auto r = run_treesim(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "treesim: " + dir +
                       "/t10k-images-idx3-ubyte: truncated IDX file: its dimensions need more than the 100 "
                       "bytes of data it has\n");
}

TEST(MlpCli, LabelsFileWithWrongMagicIsOneLineError) {
  const std::string dir = testing::temp_path("magic");
  ASSERT_EQ(std::system(("mkdir -p " + dir + " && cp " + data_path("mlp/t10k-16/t10k-images-idx3-ubyte.gz") +
                         " " + dir + " && printf 'PK\\003\\004xxxx' > " + dir + "/t10k-labels-idx1-ubyte")
                            .c_str()),
            0);
  auto args = mlp_args("int8");
  args[args.size() - 1] = dir;
  const auto r = run_treesim(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "treesim: " + dir +
                "/t10k-labels-idx1-ubyte: not an IDX file: expected a magic 00 00 TYPE RANK (RANK ≥ 1), "
                "got 80 75 3 4\n");
}

TEST(MlpCli, MoreImagesThanTheDataHoldsIsRefused) {
  const auto r = run_treesim(mlp_args("int8", {"--images", "17"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--images: expected 1 to 16"), std::string::npos) << r.err;
}

TEST(MlpCli, MissingWeightsFileNamesIt) {
  const std::string dir = testing::temp_path("model");
  ASSERT_EQ(std::system(("mkdir -p " + dir + " && cp " + data_path("mlp/int8") + "/* " + dir + " && rm " +
                         dir + "/fc2_w.npy")
                            .c_str()),
            0);
  auto args = mlp_args("int8");
  args[3] = dir;
  const auto r = run_treesim(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(dir + "/fc2_w.npy"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace treesim
