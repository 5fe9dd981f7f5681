// `treesim place`, `treesim exec` and the VCD trace as a user runs them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>

#include "sim/layout/bound_layout.h"
#include "sim/layout/loader_plan.h"
#include "sim/layout/parse.h"
#include "sim/machine/machine_file.h"
#include "tests/configs.h"
#include "tests/test_support.h"

namespace treesim {
namespace {

using testing::run_treesim;
using testing::source_path;

struct PlaceCase {
  const char* name;
  const char* shape;
  const char* layout;
};

// The TensorLayout note's test cases (§7) that are resident on mini (T17–T19 need `_W` lanes,
// T20 is a `_Time` layout); toy-machine layouts replicate over mini's omitted levels.
const PlaceCase kMiniCases[] = {
    {"T1", "12,8", "((4_PE, 3:8), (8:1))"},
    {"T4", "12,8", "((12:2), (4_PE, 2:1))"},
    {"T6", "12,8", "((3:8, 4_PE), (8:1))"},
    {"T8", "12,8", "((2_PE:2, 6:4), (2_PE:1, 4:1))"},
    {"T10", "10,7", "(10,7)/((3:7, 4_PE), (7:1))"},
    {"T12", "10,7", "(10,7)/((10:2), (2:1, 4_PE))"},
    {"T13", "12,8", "((12:8), (8:1); B@[PE])"},
    {"T14", "12,8", "((2_PE:1, 6:8), (8:1); B@[2_PE:2])"},
    {"whole-mini", "64,64", "((2_L1B, 4_MAB, 8:64), (4_PE, 16:1))"},
    {"holes-replicated", "12,8", "((4_PE, 3:16), (8:1))"},  // LM holes: replicas copied slot by slot
    {"ragged-replicated", "10,7", "(10,7)/((3:7, 4_PE), (7:1); B@[MAB])"},
};

nlohmann::json place(const std::string& machine, const std::string& shape, const std::string& layout,
                     const std::string& dtype = "int8") {
  std::string report =
      testing::temp_path("place-" + std::to_string(std::hash<std::string>{}(layout + shape)) + ".json");
  auto r = run_treesim({"place", "--machine", source_path("configs/" + machine + ".yaml"), "--shape", shape,
                        "--layout", layout, "--dtype", dtype, "--report", report, "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << layout << ": " << r.err;
  return nlohmann::json::parse(testing::read_text(report));
}

std::vector<std::uint64_t> parse_shape(const std::string& s) {
  std::vector<std::uint64_t> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(std::stoull(item));
  return out;
}

// The report's traffic equals the TensorLayout loader plan (load down, gather up).
void expect_traffic_matches_plan(const nlohmann::json& j, const std::string& machine_name,
                                 const std::string& shape, const std::string& text,
                                 std::size_t element_bytes) {
  machine::MachineConfig m = testing::config(machine_name);
  layout::BoundLayout b =
      layout::bind_or_throw(layout::parse_layout_or_throw(text, m), parse_shape(shape), m, element_bytes);
  layout::TrafficPlan load = layout::plan_load(b), gather = layout::plan_gather(b);
  EXPECT_EQ(j["dram"]["read_bytes"], load.dram_read_bytes) << text;
  const auto& g = j["phases"]["gather"];
  EXPECT_EQ(g["dram"]["write_bytes"], gather.dram_write_bytes) << text;
  EXPECT_EQ(g["cycles"], j["gather_cycles"]) << text;
  for (std::size_t l = 0; l < m.levels.size(); ++l) {
    const auto& level = j["levels"][m.levels[l].name];
    EXPECT_EQ(level["down_sent_bytes"], load.levels[l].down_sent_bytes) << text << " " << m.levels[l].name;
    EXPECT_EQ(level["down_delivered_bytes"], load.levels[l].down_delivered_bytes)
        << text << " " << m.levels[l].name;
    EXPECT_EQ(level["busiest_down_port_bytes"], load.levels[l].busiest_down_port_bytes) << text;
    EXPECT_EQ(level["up_sent_bytes"], 0) << text;  // the load alone
    const auto& up = g["levels"][m.levels[l].name];
    EXPECT_EQ(up["up_sent_bytes"], gather.levels[l].up_sent_bytes) << text << " " << m.levels[l].name;
    EXPECT_EQ(up["up_delivered_bytes"], gather.levels[l].up_delivered_bytes)
        << text << " " << m.levels[l].name;
    EXPECT_EQ(up["busiest_up_port_bytes"], gather.levels[l].busiest_up_port_bytes) << text;
  }
}

TEST(PlaceCli, NoteLayoutsRoundTripBitExactlyOnMini) {
  for (const PlaceCase& c : kMiniCases) {
    nlohmann::json j = place("mini", c.shape, c.layout);
    EXPECT_EQ(j["verify"]["ok"], true) << c.name;
    EXPECT_EQ(j["verify"]["mismatches"], 0) << c.name;
    EXPECT_EQ(j["kernel"], "place");
    EXPECT_GE(j["cycles"].get<std::uint64_t>(), j["roofline"]["cycles"].get<std::uint64_t>()) << c.name;
    EXPECT_GT(j["gather_cycles"].get<std::uint64_t>(), 0u) << c.name;
    expect_traffic_matches_plan(j, "mini", c.shape, c.layout, 1);
  }
}

TEST(PlaceCli, Int32TensorRoundTrips) {
  nlohmann::json j = place("mini", "12,8", "((4_PE, 3:8), (8:1))", "int32");
  EXPECT_EQ(j["verify"]["ok"], true);
  expect_traffic_matches_plan(j, "mini", "12,8", "((4_PE, 3:8), (8:1))", 4);
}

TEST(PlaceCli, SeedLayoutRoundTripsOnTheBoard) {
  const char* layout = "((16_L2B, 8_L1B, 8:8), (16_MAB, 8:1, 4_PE))";
  nlohmann::json j = place("mncore-board", "1024,512", layout);
  EXPECT_EQ(j["verify"]["ok"], true);
  EXPECT_EQ(j["lm_peak_bytes_per_pe"], 64);
  expect_traffic_matches_plan(j, "mncore-board", "1024,512", layout, 1);
}

TEST(PlaceCli, TimeLayoutIsRejectedWithCaret) {
  auto r = run_treesim({"place", "--machine", source_path("configs/mini.yaml"), "--shape", "12,8", "--layout",
                        "((3_Time, 4_PE), (8:1))"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("E140"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("^"), std::string::npos) << r.err;
}

TEST(PlaceCli, LayoutInvalidForTheMachineIsRejected) {
  auto r = run_treesim({"place", "--machine", source_path("configs/mini.yaml"), "--shape", "64,8", "--layout",
                        "((16_L2B, 4:8), (8:1))"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("E050"), std::string::npos) << r.err;
}

TEST(PlaceCli, BadShapeIsRejected) {
  auto r = run_treesim({"place", "--machine", source_path("configs/mini.yaml"), "--shape", "12,x", "--layout",
                        "((4_PE, 3:8), (8:1))"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "treesim: --shape: expected positive sizes like 1024,512, got '12,x'\n");
}

TEST(PlaceCli, SummaryNamesTheBoundAndVerify) {
  auto r = run_treesim({"place", "--machine", source_path("configs/mini.yaml"), "--shape", "12,8", "--layout",
                        "((4_PE, 3:8), (8:1))"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("roofline bound"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verify: ok"), std::string::npos) << r.out;
}

TEST(VcdTrace, MiniTraceConvertsWithVcd2fstAndFollowsTheTree) {
  std::string vcd = testing::temp_path("mini.vcd");
  auto r = run_treesim({"place", "--machine", source_path("configs/mini.yaml"), "--shape", "64,64",
                        "--layout", "((2_L1B, 4_MAB, 8:64), (4_PE, 16:1))", "--vcd", vcd, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string text = testing::read_text(vcd);
  EXPECT_NE(text.find("$scope module board $end\n"), std::string::npos);
  EXPECT_NE(text.find("$scope module L2B_0 $end\n$var"), std::string::npos);
  EXPECT_NE(text.find("$scope module MAB_3 $end"), std::string::npos);
  EXPECT_NE(text.find("$scope module PE_3 $end\n$var wire 1"), std::string::npos);
  EXPECT_NE(text.find("mac_busy"), std::string::npos);
  EXPECT_NE(text.find("down_bytes"), std::string::npos);
  std::string fst = testing::temp_path("mini.fst");
  EXPECT_EQ(std::system(("vcd2fst " + vcd + " " + fst + " > /dev/null 2>&1").c_str()), 0);
  std::ifstream check(fst);
  EXPECT_TRUE(check.good());
}

TEST(VcdTrace, DepthStopsTheTraceAtALevel) {
  std::string vcd = testing::temp_path("depth.vcd");
  auto r = run_treesim({"place", "--machine", source_path("configs/mini.yaml"), "--shape", "12,8", "--layout",
                        "((4_PE, 3:8), (8:1))", "--vcd", vcd, "--vcd-depth", "2", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string text = testing::read_text(vcd);
  EXPECT_NE(text.find("L1B_1"), std::string::npos);
  EXPECT_EQ(text.find("MAB_"), std::string::npos);
}

TEST(VcdTrace, UnitPatternKeepsOnlyMatchingUnits) {
  std::string vcd = testing::temp_path("units.vcd");
  auto r = run_treesim({"place", "--machine", source_path("configs/mini.yaml"), "--shape", "12,8", "--layout",
                        "((4_PE, 3:8), (8:1))", "--vcd", vcd, "--vcd-units", "board.L2B_0.L1B_1.MAB_2*",
                        "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string text = testing::read_text(vcd);
  EXPECT_NE(text.find("$scope module MAB_2"), std::string::npos);
  EXPECT_EQ(text.find("$scope module MAB_1"), std::string::npos);
  EXPECT_EQ(text.find("$scope module L1B_0"), std::string::npos);
  EXPECT_EQ(std::system(("vcd2fst " + vcd + " " + vcd + ".fst > /dev/null 2>&1").c_str()), 0);
}

// Bad programs: one line on stderr, exit status 2, no report written.
struct BadProgram {
  const char* name;
  const char* text;
  const char* error;  // expected on stderr after "treesim: "
};

const BadProgram kBadPrograms[] = {
    {"unknown-instruction", "tensor A shape=4\nfoo a=1\n", "prog.txt:2: unknown instruction 'foo'"},
    {"lm-out-of-range",
     "tensor A shape=2048\nload tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
     "copy src=0 dst=65500 bytes=64\n",
     "instruction 1 (copy): LM range [65500, 65564) is outside the 65536-byte LM"},
    {"read-never-written",
     "tensor A shape=2048\nload tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
     "mac a=0 b=1000 c=2000 m=2 n=2 k=2\n",
     "instruction 1 (mac): reads LM [1000, 1004) which no earlier instruction wrote"},
    {"layout-invalid-for-machine", "tensor A shape=64,8\nload tensor=A layout=\"((16_L2B, 4:8), (8:1))\"\n",
     "instruction 0 (load): layout \"((16_L2B, 4:8), (8:1))\" at column 3: E050"},
    {"unknown-level",
     "tensor A shape=2048\nload tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
     "reduce level=L3B src=0 dst=64 count=4\n",
     "prog.txt:3: field 'level': expected a level of the machine (board, L2B, L1B, MAB, PE), got 'L3B'"},
    {"bad-requant",
     "tensor A shape=2048\nload tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
     "requant src=0 dst=64 rows=1 cols=4 multiplier=1,2 shift=0,0\n",
     "instruction 1 (requant): 2 multipliers: give 1 (per tensor) or cols = 4 (per channel)"},
};

TEST(ExecCli, BadProgramsExitTwoWithOneLine) {
  for (const BadProgram& bad : kBadPrograms) {
    std::string prog = testing::write_temp_file("prog.txt", bad.text);
    std::string report = testing::temp_path(std::string(bad.name) + ".json");
    auto r = run_treesim({"exec", prog, "--machine", source_path("configs/mini.yaml"), "--report", report});
    EXPECT_EQ(r.exit_code, 2) << bad.name;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << bad.name << ": " << r.err;
    std::string expected = "treesim: " + std::string(bad.error);
    if (std::string(bad.name) == "unknown-instruction" || std::string(bad.name) == "unknown-level")
      expected = "treesim: " + prog.substr(0, prog.size() - 8) + bad.error;
    EXPECT_EQ(r.err.rfind(expected, 0), 0u)
        << bad.name << "\nexpected: " << expected << "\n     got: " << r.err;
    EXPECT_FALSE(std::ifstream(report).good()) << bad.name << ": a report was written";
  }
}

TEST(ExecCli, RunsAProgramAndWritesOutputs) {
  std::string prog = testing::write_temp_file("ok.txt",
                                              "tensor A shape=12,8\ntensor B shape=12,8\n"
                                              "load tensor=A layout=\"((4_PE, 3:8), (8:1))\"\n"
                                              "copy src=0 dst=100 bytes=24\n"
                                              "store tensor=B layout=\"((4_PE, 3:8), (8:1))\" lm=100\n");
  std::string out = testing::temp_path("b.npy");
  std::string report = testing::temp_path("ok.json");
  auto r = run_treesim({"exec", prog, "--machine", source_path("configs/mini.yaml"), "--output", "B=" + out,
                        "--report", report, "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  nlohmann::json j = nlohmann::json::parse(testing::read_text(report));
  EXPECT_EQ(j["instructions"]["copy"]["count"], 1);
  EXPECT_EQ(j["instructions"]["load"]["count"], 1);
  EXPECT_TRUE(std::ifstream(out).good());
}

TEST(ExecCli, PrintShowsTheCanonicalProgram) {
  std::string prog =
      testing::write_temp_file("print.txt", "tensor A shape=4\ncopy src=0 dst=4 bytes=4 # c\n");
  auto r = run_treesim({"exec", prog, "--machine", source_path("configs/mini.yaml"), "--print"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "# treesim program\ntensor A shape=4 dtype=int8\ncopy src=0 dst=4 bytes=4\n");
}

}  // namespace
}  // namespace treesim
