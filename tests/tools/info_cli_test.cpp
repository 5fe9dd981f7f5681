// `treesim info`, `treesim topology` and the machine-file errors as a user sees them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>

#include "tests/test_support.h"

namespace treesim {
namespace {

using testing::run_treesim;
using testing::source_path;

nlohmann::json info_json(const std::string& machine) {
  auto r = run_treesim({"info", "--machine", source_path("configs/" + machine + ".yaml"), "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  return nlohmann::json::parse(r.out);
}

TEST(InfoCli, TheBoardElaboratesFewerThan50ModulesEachWithAProcessSocketOrPort) {
  auto r =
      run_treesim({"info", "--machine", source_path("configs/mncore-board.yaml"), "--systemc", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_LT(j["modules"].size(), 50u);
  std::vector<std::string> names;
  for (const auto& m : j["modules"]) {
    names.push_back(m["name"]);
    EXPECT_FALSE(m["processes"].empty() && m["sockets"].empty() && m["ports"].empty()) << m.dump();
  }
  // One module per level, the PE array, the sequencer (a thread) and the DRAM behind the board.
  EXPECT_EQ(names, (std::vector<std::string>{"board", "board.L2B", "board.L1B", "board.MAB", "board.PE",
                                             "board.pe_array", "board.sequencer", "dram"}));
}

TEST(InfoCli, BoardJsonCounts) {
  auto j = info_json("mncore-board");
  EXPECT_EQ(j["pes"], 8192);
  std::vector<std::uint64_t> units;
  for (const auto& l : j["levels"]) units.push_back(l["units"]);
  EXPECT_EQ(units, (std::vector<std::uint64_t>{16, 128, 2048, 8192}));
  EXPECT_EQ(j["lm_bytes_per_pe"], 32 * 1024);
  EXPECT_EQ(j["lm_bytes_total"], 8192ull * 32 * 1024);
  // 8192 PEs × 32 MACs × 2 ops × 1 GHz.
  EXPECT_DOUBLE_EQ(j["peak_int8_ops_per_second"].get<double>(), 8192.0 * 32 * 2 * 1e9);
  EXPECT_DOUBLE_EQ(j["dram"]["bytes_per_second"].get<double>(), 512e9);
  EXPECT_DOUBLE_EQ(j["machine_balance_ops_per_dram_byte"].get<double>(), 8192.0 * 32 * 2 / 512);
}

TEST(InfoCli, PathLatencyIsDramsPlusEveryLevels) {
  auto j = info_json("mncore-board");
  EXPECT_EQ(j["dram"]["latency_cycles"], 200);
  EXPECT_EQ(j["path_latency_cycles"], 200 + 16 + 8 + 4 + 2);
}

TEST(InfoCli, DieJsonCounts) {
  auto j = info_json("mncore-die");
  EXPECT_EQ(j["pes"], 2048);
  EXPECT_EQ(j["levels"][0]["units"], 4);
  EXPECT_EQ(j["levels"][3]["units"], 2048);
}

TEST(InfoCli, MiniJsonCounts) {
  auto j = info_json("mini");
  EXPECT_EQ(j["pes"], 32);
  std::vector<std::uint64_t> units;
  for (const auto& l : j["levels"]) units.push_back(l["units"]);
  EXPECT_EQ(units, (std::vector<std::uint64_t>{1, 2, 8, 32}));
  // Aggregate link bandwidth: parents × bytes/cycle × clock; the PE level has 8 MAB parents of 8 B/c.
  EXPECT_DOUBLE_EQ(j["levels"][3]["down_bytes_per_second"].get<double>(), 8 * 8 * 1e9);
  EXPECT_DOUBLE_EQ(j["levels"][1]["down_bytes_per_second"].get<double>(), 32e9);
  EXPECT_EQ(j["lm_bytes_total"], 32 * 64 * 1024);
}

TEST(InfoCli, TextSummarySaysPeCount) {
  auto r = run_treesim({"info", "--machine", source_path("configs/mncore-board.yaml")});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("8192 PEs"), std::string::npos) << r.out;
}

TEST(InfoCli, MalformedMachineExitsTwoWithOneLine) {
  std::string path = testing::write_temp_file(
      "bad-fanout.yaml", "name: x\nclock_ghz: 1\nlevels:\n  - { name: PE, fanout: 0 }\n");
  auto r = run_treesim({"info", "--machine", path});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(path + ":"), std::string::npos) << r.err;
}

TEST(InfoCli, MissingMachineFileExitsTwo) {
  auto r = run_treesim({"info", "--machine", "/nonexistent.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "treesim: /nonexistent.yaml:1:1: cannot open the machine file (does it exist?)\n");
}

TEST(InfoCli, UnknownOptionExitsTwo) {
  auto r = run_treesim({"info", "--machine", source_path("configs/mini.yaml"), "--bogus"});
  EXPECT_EQ(r.exit_code, 2);
}

TEST(InfoCli, VersionPrintsVersion) {
  auto r = run_treesim({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("treesim ", 0), 0u);
}

TEST(InfoCli, HelpListsSubcommands) {
  auto r = run_treesim({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("info"), std::string::npos);
  EXPECT_NE(r.out.find("topology"), std::string::npos);
}

TEST(TopologyCli, DotIsAcceptedByGraphviz) {
  std::string dot = testing::temp_path("mini.dot");
  auto r = run_treesim({"topology", "--machine", source_path("configs/mini.yaml"), "--dot", "-o", dot});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string svg = testing::temp_path("mini.svg");
  ASSERT_EQ(std::system(("dot -Tsvg " + dot + " -o " + svg).c_str()), 0) << "graphviz rejected the DOT";
  std::ifstream in(svg);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("PE_3"), std::string::npos);
}

TEST(TopologyCli, BoardDotWithDepthIsAcceptedByGraphviz) {
  std::string dot = testing::temp_path("board.dot");
  auto r = run_treesim({"topology", "--machine", source_path("configs/mncore-board.yaml"), "--dot", "--depth",
                        "2", "-o", dot});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(std::system(("dot -Tsvg " + dot + " -o /dev/null").c_str()), 0);
}

}  // namespace
}  // namespace treesim

namespace treesim {
namespace {

// Each file in tests/data/machines/ breaks one rule; the CLI must name the file, line, column and
// field in one line on stderr and exit with status 2.
struct BadMachine {
  const char* file;
  const char* where_and_what;  // expected text right after "treesim: PATH:"
};

const BadMachine kBadMachines[] = {
    {"bad-zero-fanout.yaml", "8:26: field 'levels[1].fanout': expected a positive integer, got '0'"},
    {"bad-negative-fanout.yaml", "8:26: field 'levels[1].fanout': expected a positive integer, got '-2'"},
    {"bad-missing-clock.yaml", "3:1: field 'clock_ghz': missing (it is required)"},
    {"bad-wrong-type.yaml", "4:12: field 'clock_ghz': expected a positive number, got a list"},
    {"bad-unknown-key.yaml", "7:133: unknown field 'levels[0].bandwidth'"},
    {"bad-size-suffix.yaml", "7:43: field 'levels[0].memory_bytes': expected a size in bytes"},
    {"bad-zero-lm.yaml", "10:43: field 'levels[3].memory_bytes': expected a positive size in bytes"},
    {"bad-duplicate-level.yaml", "9:13: field 'levels[2].name': level name 'L1B' is used twice"},
    {"bad-reserved-time.yaml", "9:13: field 'levels[2].name': 'Time' is reserved"},
    {"bad-reserved-w.yaml", "9:13: field 'levels[2].name': 'W' is reserved"},
    {"bad-empty-levels.yaml", "4:9: field 'levels': expected a non-empty list of levels"},
    {"bad-not-yaml.yaml", "2:9: not valid YAML"},
    {"bad-empty-file.yaml", "1:1: the file is empty"},
    {"bad-zero-dpt-rate.yaml", "13:35: field 'pe.dpt_decoder.bytes_per_cycle': expected a positive integer"},
    {"bad-mac-rate-text.yaml",
     "12:39: field 'pe.mac.int8_macs_per_cycle': expected a positive integer, got 'many'"},
    {"does-not-exist.yaml", "1:1: cannot open the machine file"},
};

TEST(InfoCli, MalformedMachineFilesNameFileLineColumnAndExitTwo) {
  for (const BadMachine& bad : kBadMachines) {
    std::string path = testing::source_path(std::string("tests/data/machines/") + bad.file);
    auto r = testing::run_treesim({"info", "--machine", path});
    EXPECT_EQ(r.exit_code, 2) << bad.file;
    EXPECT_EQ(r.out, "") << bad.file;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << bad.file << ": " << r.err;
    std::string prefix = "treesim: " + path + ":" + bad.where_and_what;
    EXPECT_EQ(r.err.rfind(prefix, 0), 0u) << "expected prefix: " << prefix << "\n got: " << r.err;
  }
}

}  // namespace
}  // namespace treesim
