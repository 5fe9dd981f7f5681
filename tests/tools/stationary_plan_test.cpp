// Plan files whose A or B stays in the LM over the passes that share it (`stationary`): they run
// bit-exactly on both GEMM kernels, the kept operand crosses DRAM once, and a bad value is a
// one-line error naming the field. Also the per-column vectors of passes loaded ahead.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace treesim::testing {
namespace {

using json = nlohmann::json;

// 100×90×200 on mini over 16 M units and 2 N units, in 4×2 passes of 2×24 tiles (edge blocks on
// both sides), K in at least 4 steps.
const std::vector<std::string> kShape = {"--m", "100", "--n", "90", "--k", "200"};

std::string plan_file(const std::string& kernel, const std::string& extra) {
  return write_temp_file(
      kernel + "-stationary.yaml",
      "kernel: " + kernel +
          "\nmachine: mini\nm: 100\nn: 90\nk: 200\nsplit: {M: [MAB, PE], N: [L1B], K: []}\n"
          "m_passes_factor: 4\npass_splits: 1\nmin_k_steps: 4\n" +
          extra);
}

struct PlanRun {
  std::string plan_line;
  std::uint64_t cycles = 0, dram_read = 0;
};

PlanRun run(const std::string& kernel, const std::string& extra, std::vector<std::string> more = {}) {
  const std::string report = temp_path(kernel + "-stationary.json");
  std::vector<std::string> args = {
      "run",      kernel, "--machine",   source_path("configs/mini.yaml"), "--verify",
      "--report", report, "--plan-file", plan_file(kernel, extra)};
  args.insert(args.end(), kShape.begin(), kShape.end());
  args.insert(args.end(), more.begin(), more.end());
  CliResult r = run_treesim(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  PlanRun out;
  out.plan_line = r.out.substr(0, r.out.find('\n'));
  const json j = json::parse(read_text(report).empty() ? "{}" : read_text(report));
  EXPECT_EQ(j.value("/verify/ok"_json_pointer, false), true) << kernel << " " << extra;
  out.cycles = j.value("cycles", std::uint64_t{0});
  out.dram_read = j.value("/dram/read_bytes"_json_pointer, std::uint64_t{0});
  return out;
}

TEST(StationaryPlan, KeptOperandsRunVerifiedAndCrossDramOnce) {
  // No per-column vectors: with A kept the passes run M blocks outer, and each pass loads its column
  // block's vectors again.
  const std::vector<std::string> no_bias = {"--no-bias"};
  const PlanRun none = run("qgemm", "stationary: none\n", no_bias);
  const PlanRun a = run("qgemm", "stationary: A\n", no_bias);
  const PlanRun b = run("qgemm", "stationary: B\n", no_bias);
  EXPECT_NE(a.plan_line.find("A kept over the N passes"), std::string::npos) << a.plan_line;
  EXPECT_NE(b.plan_line.find("B kept over the M passes"), std::string::npos) << b.plan_line;
  EXPECT_EQ(none.plan_line.find("kept"), std::string::npos) << none.plan_line;
  // A (100×200 bytes) read by one N pass of two, B (200×90) by one M pass of four.
  EXPECT_EQ(none.dram_read - a.dram_read, 100u * 200u);
  EXPECT_EQ(none.dram_read - b.dram_read, 3u * 200u * 90u);
}

TEST(StationaryPlan, KeptOperandsRunVerifiedWithPerColumnRequant) {
  for (const char* kept : {"A", "B"}) {
    const PlanRun r = run("qgemm", std::string("stationary: ") + kept + "\n", {"--per-channel"});
    EXPECT_NE(r.plan_line.find(std::string(kept) + " kept"), std::string::npos) << r.plan_line;
  }
}

TEST(StationaryPlan, TgemmKeepsAWithPackedWeightsAndBWithUnpackedOnes) {
  const PlanRun a = run("tgemm", "stationary: A\n", {"--weight-encoding", "dpt"});
  EXPECT_NE(a.plan_line.find("A kept over the N passes"), std::string::npos) << a.plan_line;
  const PlanRun b = run("tgemm", "stationary: B\n", {"--weight-encoding", "int8"});
  EXPECT_NE(b.plan_line.find("B kept over the M passes"), std::string::npos) << b.plan_line;
  // A packed W is decoded per pass from its buffers: it is not kept.
  const PlanRun packed = run("tgemm", "stationary: B\n", {"--weight-encoding", "dpt"});
  EXPECT_EQ(packed.plan_line.find("kept"), std::string::npos) << packed.plan_line;
}

TEST(StationaryPlan, AFileWithoutTheFieldKeepsNothing) {
  EXPECT_EQ(run("qgemm", "").cycles, run("qgemm", "stationary: none\n").cycles);
}

TEST(StationaryPlan, AnUnknownOperandIsRefusedNamingTheField) {
  const std::string f = plan_file("qgemm", "stationary: C\n");
  std::vector<std::string> args = {"run",         "qgemm", "--machine", source_path("configs/mini.yaml"),
                                   "--plan-file", f};
  args.insert(args.end(), kShape.begin(), kShape.end());
  CliResult r = run_treesim(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(f + ":10: 'stationary': expected none, A or B, got 'C'"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

// The lookahead loads the next block's first K steps into the kept operand's slots before the MACs
// of this block's last steps: a kept operand takes K in at least as many steps as there are buffers.
TEST(StationaryPlan, AKeptOperandTakesKInAtLeastAsManyStepsAsBuffers) {
  for (const char* kept : {"A", "B"}) {
    const std::string f = write_temp_file(
        "kept-few-steps.yaml", std::string("kernel: qgemm\nmachine: mini\nm: 100\nn: 90\nk: 200\n"
                                           "split: {M: [MAB, PE], N: [L1B], K: []}\nm_passes_factor: 4\n"
                                           "pass_splits: 1\nmin_k_steps: 1\nbuffers: 3\nstationary: ") +
                                   kept + "\n");
    std::vector<std::string> args = {
        "run", "qgemm", "--machine", source_path("configs/mini.yaml"), "--verify", "--plan-file", f};
    args.insert(args.end(), kShape.begin(), kShape.end());
    CliResult r = run_treesim(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("K in 3 steps of 67 (3 buffers), " + std::string(kept) + " kept"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("verify: ok"), std::string::npos) << r.out;
  }
}

// With three buffers and one K step per pass, the loads run two passes ahead of a pass's requant:
// each column block's per-column multipliers and shifts need a buffer of their own until then.
TEST(StationaryPlan, PassesLoadedTwoAheadKeepTheirOwnPerColumnVectors) {
  const std::string f = write_temp_file(
      "vectors-ahead.yaml",
      "kernel: qgemm\nmachine: mini\nm: 8\nn: 128\nk: 64\nsplit: {M: [MAB], N: [L1B], K: []}\n"
      "m_passes_factor: 1\npass_splits: 4\nmin_k_steps: 1\nbuffers: 3\n");
  const std::string report = temp_path("vectors-ahead.json");
  CliResult r =
      run_treesim({"run", "qgemm", "--machine", source_path("configs/mini.yaml"), "--m", "8", "--n", "128",
                   "--k", "64", "--per-channel", "--verify", "--plan-file", f, "--report", report});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("in 1×16 passes; K in 1 steps of 64 (3 buffers)"), std::string::npos) << r.out;
  const json j = json::parse(read_text(report).empty() ? "{}" : read_text(report));
  EXPECT_EQ(j.value("/verify/ok"_json_pointer, false), true);
}

}  // namespace
}  // namespace treesim::testing
