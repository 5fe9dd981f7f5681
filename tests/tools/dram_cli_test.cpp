// The memory system as a user sees it: MN-Core 2 with a DRAM channel per Group (configs/mncore2.yaml),
// the same machine with a banked GDDR6 model (configs/mncore2-gddr6.yaml), and `treesim dram probe`.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>

#include "sim/machine/machine_file.h"
#include "tests/test_support.h"

namespace treesim {
namespace {

using testing::run_treesim;
using testing::source_path;

// A's and C's rows split over the Groups (so placed in the Groups' channels); B (and the bias) go
// to every Group.
const std::string kLayoutA = "((4_Group, 2_L2B, 16_MAB, 4_PE, 1:256), (256:1))";
const std::string kLayoutC = "((4_Group, 2_L2B, 16_MAB, 4_PE, 1:32), (8_L1B, 32:1))";

nlohmann::json run_json(std::vector<std::string> args) {
  const std::string report = testing::temp_path("report.json");
  args.insert(args.end(), {"--report", report});
  const auto r = run_treesim(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(testing::read_text(report));
}

std::vector<std::string> split_qgemm(const std::string& machine, std::uint64_t k) {
  return {"run",        "qgemm",
          "--machine",  source_path("configs/" + machine + ".yaml"),
          "--m",        "512",
          "--n",        "256",
          "--k",        std::to_string(k),
          "--layout-a", kLayoutA,
          "--layout-c", kLayoutC,
          "--verify"};
}

TEST(DramCli, AQgemmSplitOverTheGroupsMovesOnlyTheBroadcastOperandsBetweenThem) {
  const nlohmann::json r = run_json(split_qgemm("mncore2", 256));
  EXPECT_TRUE(r["verify"]["ok"].get<bool>());
  // Only B (256 × 256 int8) and the bias (256 int32) cross between Groups, each once up and once
  // down (a broadcast to the three other Groups); A's and C's rows never leave their Group.
  const std::uint64_t broadcast = 256 * 256 + 4 * 256;
  EXPECT_EQ(r["levels"]["Group"]["down_sent_bytes"].get<std::uint64_t>(), broadcast);
  EXPECT_EQ(r["levels"]["Group"]["down_delivered_bytes"].get<std::uint64_t>(), 3 * broadcast);
  EXPECT_EQ(r["levels"]["Group"]["up_sent_bytes"].get<std::uint64_t>(), broadcast);
  // Every channel holds a quarter of every tensor and serves it.
  ASSERT_EQ(r["dram"]["channels"].size(), 4u);
  for (const auto& c : r["dram"]["channels"]) {
    EXPECT_EQ(c["read_bytes"], r["dram"]["channels"][0]["read_bytes"]);
    EXPECT_EQ(c["write_bytes"].get<std::uint64_t>(), 512u * 256 / 4);
  }
}

// configs/mncore2.yaml with another dram.placement.
std::string mncore2_placed(const std::string& placement) {
  std::string text = testing::read_text(source_path("configs/mncore2.yaml"));
  const auto at = text.find("placement: layout");
  text.replace(at, std::string("placement: layout").size(), "placement: " + placement);
  return testing::write_temp_file("mncore2-" + placement + ".yaml", text);
}

std::vector<std::string> own_qgemm(const std::string& machine) {
  return {"run", "qgemm", "--machine", machine, "--m", "512", "--n", "256", "--k", "256", "--verify"};
}

TEST(DramCli, APlanThatCutsTheColumnsOverTheGroupsMovesOnlyTheOperandItCopiesIntoEveryGroup) {
  // The planner's own choice on mncore2 cuts N over the Groups: B's and C's columns lie in their
  // Group's channel, and only A, which its layout copies into every Group, crosses (once up from
  // the channel holding each row, once down to the three other Groups).
  const nlohmann::json r = run_json(own_qgemm(source_path("configs/mncore2.yaml")));
  EXPECT_TRUE(r["verify"]["ok"].get<bool>());
  const std::uint64_t a = 512 * 256;
  EXPECT_EQ(r["levels"]["Group"]["down_sent_bytes"].get<std::uint64_t>(), a);
  EXPECT_EQ(r["levels"]["Group"]["down_delivered_bytes"].get<std::uint64_t>(), 3 * a);
  EXPECT_EQ(r["levels"]["Group"]["up_sent_bytes"].get<std::uint64_t>(), a);
}

TEST(DramCli, EqualPiecesInsteadOfTheLayoutsPlacementMoveMoreBetweenTheGroups) {
  // Split: each tensor in four row-major quarters, whichever axis the layouts cut over the Groups.
  const nlohmann::json layout = run_json(own_qgemm(source_path("configs/mncore2.yaml")));
  const nlohmann::json split = run_json(own_qgemm(mncore2_placed("split")));
  EXPECT_TRUE(split["verify"]["ok"].get<bool>());
  EXPECT_GT(split["levels"]["Group"]["down_sent_bytes"].get<std::uint64_t>(),
            layout["levels"]["Group"]["down_sent_bytes"].get<std::uint64_t>());
  EXPECT_GT(split["levels"]["Group"]["up_sent_bytes"].get<std::uint64_t>(),
            layout["levels"]["Group"]["up_sent_bytes"].get<std::uint64_t>());
}

// configs/mncore2-gddr6.yaml with its banked DRAM replaced by the simple model of the same peak
// (rounded down) and a row hit's latency: what the banked model adds is rows, banks and refresh.
std::string simple_equivalent() {
  const machine::MachineConfig m = machine::load_machine_file(source_path("configs/mncore2-gddr6.yaml"));
  std::string text = testing::read_text(source_path("configs/mncore2-gddr6.yaml"));
  const auto from = text.find("  model: banked"), to = text.find("levels:");
  text.replace(from, to - from,
               "  bytes_per_cycle: " + std::to_string(m.dram.bytes_per_cycle) +
                   "\n  latency_cycles: " + std::to_string(m.dram.latency_cycles) + "\n");
  return testing::write_temp_file("mncore2-simple.yaml", text);
}

// One test per shape: each runs two simulations, and a sanitizer build gives a test 120 s.
class BankedShapes : public ::testing::TestWithParam<std::size_t> {};

TEST_P(BankedShapes, TheBankedModelIsNeverFasterThanSimpleDramOfTheSamePeakAndReportsItsRowHits) {
  const std::string simple = simple_equivalent();
  const std::vector<std::vector<std::string>> shapes = {
      {"--m", "512", "--n", "256", "--k", "256", "--layout-a", kLayoutA, "--layout-c", kLayoutC},
      {"--m", "512", "--n", "256", "--k", "1024", "--layout-a",
       "((4_Group, 2_L2B, 16_MAB, 4_PE, 1:1024), (1024:1))", "--layout-c", kLayoutC},
      // The default planner's layouts for the banked machine, given (a search of all 1,280
      // assignments takes 3 s a run, about 45 under the sanitizer).
      {"--m", "256", "--n", "256", "--k", "256", "--layout-a", "(256,256)/((4_Group, 4_PE, 18:256), (256:1))",
       "--layout-c", "(256,256)/((4_Group, 4_PE, 18:1), (2_L2B, 8_L1B, 16_MAB, 1:1))"},
      {"--m", "96", "--n", "80", "--k", "200"},
      {"--m", "1024", "--n", "512", "--k", "128", "--layout-a", "((16_MAB, 4_PE, 16:128), (128:1))",
       "--layout-c", "((16_MAB, 4_PE, 16:8), (4_Group, 2_L2B, 8_L1B, 8:1))"}};
  const auto& shape = shapes.at(GetParam());
  std::vector<std::string> banked = {"run", "qgemm", "--machine", source_path("configs/mncore2-gddr6.yaml")};
  std::vector<std::string> plain = {"run", "qgemm", "--machine", simple};
  banked.insert(banked.end(), shape.begin(), shape.end());
  plain.insert(plain.end(), shape.begin(), shape.end());
  const nlohmann::json b = run_json(banked), s = run_json(plain);
  EXPECT_GE(b["cycles"].get<std::uint64_t>(), s["cycles"].get<std::uint64_t>())
      << shape[1] << shape[3] << shape[5];
  ASSERT_TRUE(b["dram"].contains("banked"));
  const double hit = b["dram"]["banked"]["row_hit_rate"].get<double>();
  EXPECT_GT(hit, 0.0);
  EXPECT_LE(hit, 1.0);
  EXPECT_FALSE(s["dram"].contains("banked"));
}

INSTANTIATE_TEST_SUITE_P(DramCli, BankedShapes, ::testing::Range<std::size_t>(0, 5));

TEST(DramCli, TimingOnlyGivesTheBankedModelsCyclesOfTheFullRun) {
  std::vector<std::string> args = split_qgemm("mncore2-gddr6", 256);
  args.pop_back();  // --verify
  const nlohmann::json full = run_json(args);
  args.push_back("--timing-only");
  const nlohmann::json timing = run_json(args);
  EXPECT_EQ(timing["cycles"], full["cycles"]);
  EXPECT_EQ(timing["dram"]["banked"], full["dram"]["banked"]);
}

TEST(DramCli, InfoShowsMnCore2sPesPeakAndFourGroupChannels) {
  const auto r = run_treesim({"info", "--machine", source_path("configs/mncore2.yaml"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["pes"], 4096);
  // The published 393 TFLOPS half-precision peak, at the MAC rate the machine file assumes for int8.
  EXPECT_NEAR(j["peak_int8_ops_per_second"].get<double>(), 393e12, 0.005 * 393e12);
  EXPECT_EQ(j["dram"]["channels"], 4);
  EXPECT_EQ(j["dram"]["per"], "Group");
  EXPECT_NEAR(j["dram"]["bytes_per_second"].get<double>() / 4, 128e9, 0.005 * 128e9);  // per Group
  EXPECT_EQ(j["pe_instruction_step_cycles"], 4);
  const auto text = run_treesim({"info", "--machine", source_path("configs/mncore2.yaml")});
  EXPECT_NE(text.out.find("4096 PEs"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("393.2 Top/s"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("4 channels, one per Group: 4 x 4 GiB, 4 x 128.2 GB/s"), std::string::npos)
      << text.out;
}

TEST(DramCli, ProbeJsonHasThePeakTheAchievedRateAndTheRowHitRate) {
  const auto r = run_treesim({"dram", "probe", "--machine", source_path("configs/mncore2-gddr6.yaml"),
                              "--pattern", "stream", "--bytes", "1MiB", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_GT(j["peak_bytes_per_cycle"].get<double>(), 170.0);
  EXPECT_GT(j["achieved_bytes_per_cycle"].get<double>(), 0.0);
  EXPECT_GT(j["row_hit_rate"].get<double>(), 0.9);
}

TEST(DramCli, ProbeRefusesRowsOnASimpleDramInOneLine) {
  const auto r =
      run_treesim({"dram", "probe", "--machine", source_path("configs/mncore2.yaml"), "--pattern", "rows:2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "treesim: --pattern: rows:N needs a banked DRAM model; mncore2 has the simple one\n");
}

}  // namespace
}  // namespace treesim
