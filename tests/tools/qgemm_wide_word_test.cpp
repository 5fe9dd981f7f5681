// `treesim run qgemm` (and relu) on machines whose LM addresses hold 2 and 4 elements (mini with
// pe.words_per_address 2 and 4, tests/data/machines/mini-w*.yaml): bit-exact against the host
// reference over int8/uint8, per-tensor and per-channel, ragged and tiny shapes, K split over the
// tree and many passes; and `place` / `exec` on such a machine place lanes where the layout says.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace treesim {
namespace {

using testing::data_path;
using testing::run_treesim;

nlohmann::json run_wide_qgemm(const std::string& machine, const std::vector<std::string>& extra) {
  static int n = 0;
  const std::string report = testing::temp_path("qgemm-wide-" + std::to_string(n++) + ".json");
  std::vector<std::string> args{
      "run",      "qgemm",   "--machine", data_path("machines/" + machine + ".yaml"),
      "--verify", "--quiet", "--report",  report};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_treesim(args);
  std::string all = machine;
  for (const auto& a : extra) all += " " + a;
  EXPECT_EQ(r.exit_code, 0) << all << "\n" << r.err;
  if (r.exit_code != 0) return {};
  nlohmann::json j = nlohmann::json::parse(testing::read_text(report));
  EXPECT_EQ(j["verify"]["ok"], true) << all;
  EXPECT_EQ(j["verify"]["mismatches"], 0) << all;
  return j;
}

// int8 and uint8 operands and outputs, zero points, per tensor and per channel, bias or none.
const std::vector<std::vector<std::string>> kWideVariants = {
    {"--dtype-a", "u8", "--dtype-b", "u8", "--dtype-out", "u8"},
    {"--dtype-a", "s8", "--dtype-b", "s8", "--a-zero", "-7", "--b-zero", "12", "--out-zero", "-3"},
    {"--per-channel"},
    {"--per-channel", "--dtype-a", "u8", "--dtype-b", "u8", "--act", "relu6", "--dtype-out", "u8"},
    {"--no-bias", "--per-channel", "--dtype-a", "u8", "--a-zero", "3"},
};

class WideLmWords : public ::testing::TestWithParam<const char*> {};

TEST_P(WideLmWords, RaggedShapeIsBitExact) {
  for (const auto& v : kWideVariants) {
    std::vector<std::string> args{"--m", "37", "--n", "50", "--k", "129"};
    args.insert(args.end(), v.begin(), v.end());
    run_wide_qgemm(GetParam(), args);
  }
}

TEST_P(WideLmWords, TinyShapeIsBitExact) {
  for (const auto& v : kWideVariants) {
    std::vector<std::string> args{"--m", "8", "--n", "8", "--k", "8"};
    args.insert(args.end(), v.begin(), v.end());
    run_wide_qgemm(GetParam(), args);
  }
}

TEST_P(WideLmWords, ShapesSmallerThanAWordAreBitExact) {
  run_wide_qgemm(GetParam(), {"--m", "1", "--n", "1", "--k", "1"});
  run_wide_qgemm(GetParam(), {"--m", "3", "--n", "5", "--k", "7", "--per-channel"});
}

TEST_P(WideLmWords, KSplitOverThePesIsBitExact) {
  const nlohmann::json j =
      run_wide_qgemm(GetParam(), {"--m", "37", "--n", "50", "--k", "129", "--per-channel", "--layout-a",
                                  "(37,129)/((2_L1B, 4_MAB, 5:33), (4_PE, 33:1))"});
  EXPECT_EQ(j["instructions"]["reduce"]["count"], 1);
}

TEST_P(WideLmWords, ManyPassesAndStepsAreBitExact) {
  const nlohmann::json j = run_wide_qgemm(
      GetParam(), {"--m", "1000", "--n", "900", "--k", "130", "--per-channel", "--dtype-a", "u8"});
  EXPECT_GT(j["passes"].get<int>(), 1);
  EXPECT_GT(j["k_steps"].get<int>(), 1);
}

TEST_P(WideLmWords, ReluIsBitExactOnFullAndPaddedWords) {
  for (const char* n : {"1000", "3"}) {
    const std::string report = testing::temp_path(std::string("relu-") + GetParam() + "-" + n + ".json");
    const auto r =
        run_treesim({"run", "relu", "--machine", data_path(std::string("machines/") + GetParam() + ".yaml"),
                     "--n", n, "--verify", "-q", "--report", report});
    EXPECT_EQ(r.exit_code, 0) << n << "\n" << r.err;
    EXPECT_EQ(nlohmann::json::parse(testing::read_text(report).empty() ? "{}" : testing::read_text(report))
                  .value("verify", nlohmann::json{{"ok", false}})["ok"],
              true)
        << n;
  }
}

INSTANTIATE_TEST_SUITE_P(Machines, WideLmWords, ::testing::Values("mini-w2", "mini-w4"),
                         [](const auto& info) { return std::string(info.param) == "mini-w2" ? "W2" : "W4"; });

// Lanes are element slots within an address: (address × 4 + lane) × element bytes, so a layout with
// `4_W` fills the LM densely and round-trips, as does one without lanes (one element per address).
TEST(WideLmWordsPlace, LanesAndWholeAddressesBothRoundTrip) {
  for (const char* layout : {"((4_PE, 3:2), (2:1, 4_W))", "((4_PE, 3:8), (8:1))"}) {
    const auto r = run_treesim(
        {"place", "--machine", data_path("machines/mini-w4.yaml"), "--shape", "12,8", "--layout", layout});
    EXPECT_EQ(r.exit_code, 0) << layout << "\n" << r.err;
    EXPECT_NE(r.out.find("verify: ok (bit-exact)"), std::string::npos) << r.out;
  }
}

TEST(WideLmWordsPlace, LmPeakCountsWholeAddresses) {
  // 3×8 int8 elements per PE: 24 B with lanes; without, 24 addresses of 4 B (the LM extent written).
  const auto lanes = run_treesim({"place", "--machine", data_path("machines/mini-w4.yaml"), "--shape", "12,8",
                                  "--layout", "((4_PE, 3:2), (2:1, 4_W))"});
  EXPECT_NE(lanes.out.find("LM peak 24 B per PE"), std::string::npos) << lanes.out;
  const auto whole = run_treesim({"place", "--machine", data_path("machines/mini-w4.yaml"), "--shape", "12,8",
                                  "--layout", "((4_PE, 3:8), (8:1))"});
  EXPECT_NE(whole.out.find("LM peak 96 B per PE"), std::string::npos) << whole.out;
}

// A program whose loads pack lanes feeds the MAC the same bytes as on mini: C is the same.
TEST(WideLmWordsExec, PackedLoadsGiveTheMacTheSameOperandsAsOnMini) {
  const std::string program =
      testing::write_temp_file("wide.prog",
                               "tensor A shape=96,8 dtype=int8\n"
                               "tensor B shape=8,8 dtype=int8\n"
                               "tensor C shape=96,8 dtype=int32\n"
                               "load tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 3:LANES), (WORDS))\" lm=0\n"
                               "load tensor=B layout=\"((8:LANES), (WORDS))\" lm=64\n"
                               "mac a=0 b=64 c=128 m=3 n=8 k=8\n"
                               "store tensor=C layout=\"((2_L1B, 4_MAB, 4_PE, 3:LANES), (WORDS))\" lm=128\n");
  auto run = [&](const std::string& machine, const std::string& lanes, const std::string& words,
                 const std::string& out) {
    std::string text = testing::read_text(program);
    for (auto [from, to] : {std::pair<std::string, std::string>{"LANES", lanes}, {"WORDS", words}})
      for (std::size_t at; (at = text.find(from)) != std::string::npos;) text.replace(at, from.size(), to);
    const std::string path = testing::write_temp_file(out + ".prog", text);
    const auto r = run_treesim({"exec", path, "--machine", machine, "--seed", "5", "-q", "--output",
                                "C=" + testing::temp_path(out + ".npy")});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return testing::read_text(testing::temp_path(out + ".npy"));
  };
  const std::string narrow = run(testing::source_path("configs/mini.yaml"), "8", "8:1", "narrow");
  const std::string wide = run(data_path("machines/mini-w4.yaml"), "2", "2:1, 4_W", "wide");
  EXPECT_FALSE(narrow.empty());
  EXPECT_EQ(wide, narrow);
}

}  // namespace
}  // namespace treesim
