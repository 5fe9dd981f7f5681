// The traces as a user asks for them: --vcd with its GTKWave view, --trace-json, their size on the
// 8,192-PE board, and `treesim trace summarize`.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace treesim::testing {
namespace {

std::uint64_t file_size(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  return f ? static_cast<std::uint64_t>(f.tellg()) : 0;
}

TEST(TraceCli, GtkwaveOpensTheVcdWithItsSaveFile) {
  const std::string vcd = temp_path("gemm.vcd");
  auto r = run_treesim({"exec", source_path("docs/examples/gemm.prog"), "--machine",
                        source_path("configs/mini.yaml"), "-q", "--vcd", vcd});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_FALSE(read_text(vcd + ".gtkw").empty());
  // GTKWave (under a virtual X server) loads the save file, lists what it displays and quits.
  const std::string script = write_temp_file(
      "list.tcl",
      "set f [open \"" + temp_path("shown.txt") +
          "\" w]\nforeach s [gtkwave::getDisplayedSignals] { puts $f $s }\nclose $f\ngtkwave::/File/Quit\n");
  const std::string cmd = "cd \"" + vcd.substr(0, vcd.rfind('/')) +
                          "\" && timeout 60 xvfb-run -a gtkwave -S \"" + script + "\" gemm.vcd.gtkw > " +
                          temp_path("gtkwave.log") + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << read_text(temp_path("gtkwave.log"));
  const std::string shown = read_text(temp_path("shown.txt"));
  for (const char* s : {"board.dram_busy\n", "board.instr\n", "board.L2B_0.L1B_0.MAB_0.down_bytes[31:0]\n",
                        "board.L2B_0.L1B_0.MAB_0.PE_0.mac_busy\n", "board.L2B_0.L1B_0.MAB_0.PE_0.instr\n"})
    EXPECT_NE(shown.find(s), std::string::npos) << s << " not in\n" << shown;
}

TEST(TraceCli, A4096CubedQgemmOnTheBoardTracesUnder20MB) {
  const std::string vcd = temp_path("q.vcd"), json = temp_path("q.json");
  auto r =
      run_treesim({"run", "qgemm", "--machine", source_path("configs/mncore-board.yaml"), "--m", "4096",
                   "--n", "4096", "--k", "4096", "--timing-only", "-q", "--vcd", vcd, "--trace-json", json});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(file_size(vcd), 0u);
  EXPECT_LT(file_size(vcd), 20u << 20);
  EXPECT_GT(file_size(json), 0u);
  EXPECT_LT(file_size(json), 20u << 20);
  const auto doc = nlohmann::json::parse(read_text(json));
  EXPECT_EQ(doc["otherData"]["kernel"], "qgemm");
  EXPECT_EQ(doc["otherData"]["machine"], "mncore-board");
}

TEST(TraceCli, SummarizeListsTheLongestStallsOfARun) {
  const std::string json = temp_path("gemm.json");
  auto r = run_treesim({"exec", source_path("docs/examples/gemm.prog"), "--machine",
                        source_path("configs/mini.yaml"), "-q", "--trace-json", json});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_treesim({"trace", "summarize", json, "--top", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // mac 2 waited 131 cycles for load 1's data, from its issue (load 1 started at 12); load 1 waited
  // 12 for the L2B port load 0 held. requant 3 waited only 7 for mac 2 (from mac 2's start).
  EXPECT_NE(r.out.find("     131             12-143  mac#2:3x8x8                 data: load#1:B[0:8,0:8]"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("load#1:B[0:8,0:8]           board.L2B_0.down: held by load#0"), std::string::npos)
      << r.out;
  const std::string stalls = r.out.substr(r.out.find(" stalls, "));
  EXPECT_EQ(stalls.find("requant#3"), std::string::npos) << r.out;  // the third longest
}

TEST(TraceCli, SummarizeRefusesAFileThatIsNotATrace) {
  const std::string bad = write_temp_file("bad.json", "{\"traceEvents\": 3}");
  auto r = run_treesim({"trace", "summarize", bad});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "treesim: " + bad +
                       ": expected an object with a 'traceEvents' array (written by --trace-json)\n");
}

}  // namespace
}  // namespace treesim::testing

namespace treesim::testing {
namespace {

// A 1024³ qgemm on the die with 32 KiB LMs and 256 B/cycle of DRAM ends with the store of C after
// the last MAC, with nothing to overlap it: the run's summary says so in one line, the report gives
// the path's cycles per resource (summing to the run's), and `trace summarize` puts the path first.
TEST(TraceCli, TheCriticalPathNamesTheStoreAfterTheLastMacInTheRunTheReportAndTheSummary) {
  std::string die = read_text(source_path("configs/mncore-die.yaml"));
  for (auto [from, to] : {std::pair<std::string, std::string>{"memory_bytes: 64KiB", "memory_bytes: 32KiB"},
                          {"\n  bytes_per_cycle: 128", "\n  bytes_per_cycle: 256"}}) {
    const std::size_t at = die.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    die.replace(at, from.size(), to);
  }
  const std::string machine = write_temp_file("die-32k.yaml", die);
  const std::string report = temp_path("die-32k.json"), trace = temp_path("die-32k-trace.json");
  auto r = run_treesim({"run", "qgemm", "--machine", machine, "--m", "1024", "--n", "1024", "--k", "1024",
                        "--timing-only", "--report", report, "--trace-json", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::size_t line = r.out.find("  critical path: ");
  ASSERT_NE(line, std::string::npos) << r.out;
  const std::string path = r.out.substr(line, r.out.find('\n', line) - line);
  EXPECT_NE(path.find("after the last MAC (requant, store)"), std::string::npos) << path;
  const nlohmann::json j = nlohmann::json::parse(read_text(report));
  std::uint64_t sum = 0;
  for (const auto& [resource, cycles] : j["critical_path"]["cycles"].items())
    sum += cycles.get<std::uint64_t>();
  EXPECT_EQ(sum, j["cycles"].get<std::uint64_t>());
  // At least the store of the last pass's last row piece (the tail pieces overlap the rest with the
  // last MACs): its share of C's 1 MiB at 128 B/cycle.
  const std::string plan = j["info"]["plan"].get<std::string>();
  std::uint64_t pieces = 1;
  if (const std::size_t at = plan.find("stored in "); at != std::string::npos)
    pieces = std::stoull(plan.substr(at + 10));
  EXPECT_GE(j["critical_path"]["after_last_mac_cycles"].get<std::uint64_t>(),
            8192u / j["passes"].get<std::uint64_t>() / pieces);
  EXPECT_EQ("  critical path: " + j["critical_path"]["summary"].get<std::string>(), path);
  r = run_treesim({"trace", "summarize", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::size_t second = r.out.find('\n') + 1;
  EXPECT_EQ(r.out.substr(second, 15), "critical path: ") << r.out;
  EXPECT_NE(r.out.find("after the last MAC (requant, store)"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace treesim::testing
