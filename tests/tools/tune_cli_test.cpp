// `treesim tune qgemm|tgemm|chain` and `treesim run … --plan-file`: the tuner's best plan is at
// least as fast as the default planner's, its plan file runs (bit-exactly verified) in the cycles
// the tuner reported, and bad plan files are one-line errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <regex>

#include "tests/test_support.h"

namespace treesim::testing {
namespace {

using json = nlohmann::json;

std::vector<std::string> shape(const char* m, const char* n, const char* k) {
  return {"--m", m, "--n", n, "--k", k};
}

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

json tune(const std::string& kernel, const std::vector<std::string>& args) {
  CliResult r =
      run_treesim(with({"tune", kernel, "--machine", source_path("configs/mini.yaml"), "--json"}, args));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out.empty() ? "{}" : r.out);
}

std::uint64_t run_cycles(const std::string& kernel, const std::vector<std::string>& args,
                         const std::string& name) {
  const std::string report = temp_path(name + ".json");
  CliResult r = run_treesim(
      with({"run", kernel, "--machine", source_path("configs/mini.yaml"), "-q", "--report", report}, args));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(read_text(report).empty() ? "{}" : read_text(report));
  if (j.contains("verify")) {
    EXPECT_EQ(j["verify"]["ok"], true) << name;
  }
  return j.value("cycles", std::uint64_t{0});
}

struct Shape {
  const char *name, *m, *n, *k;
};

void PrintTo(const Shape& s, std::ostream* os) { *os << s.name << " " << s.m << "×" << s.n << "×" << s.k; }

class TuneShapes : public ::testing::TestWithParam<Shape> {};

TEST_P(TuneShapes, BestIsAtLeastAsFastAsTheDefaultPlanner) {
  const Shape& s = GetParam();
  json t = tune("qgemm", shape(s.m, s.n, s.k));
  ASSERT_FALSE(t["simulated"].empty());
  const std::uint64_t best = t["simulated"][0]["simulated_cycles"];
  const std::uint64_t def = run_cycles("qgemm", with(shape(s.m, s.n, s.k), {"--timing-only"}), s.name);
  EXPECT_LE(best, def) << s.name;
}

TEST_P(TuneShapes, PlanFileRunsVerifiedInTheTunedCycles) {
  const Shape& s = GetParam();
  const std::string out = temp_path(std::string(s.name) + "-best.yaml");
  json t = tune("qgemm", with(shape(s.m, s.n, s.k), {"--out", out, "--budget", "4"}));
  ASSERT_FALSE(t["simulated"].empty());
  const std::uint64_t tuned = t["simulated"][0]["simulated_cycles"];
  EXPECT_EQ(run_cycles("qgemm", with(shape(s.m, s.n, s.k), {"--plan-file", out, "--verify"}), s.name), tuned);
}

INSTANTIATE_TEST_SUITE_P(Mini, TuneShapes,
                         ::testing::Values(Shape{"square", "96", "96", "96"},
                                           Shape{"tall", "512", "16", "64"},
                                           Shape{"gemv", "1", "128", "256"}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(Tune, DefaultPlannersPlanIsSimulatedAndMatchesItsRun) {
  json t = tune("qgemm", shape("64", "48", "80"));
  bool found = false;
  for (const json& c : t["simulated"])
    if (c["estimate_rank"] == 1) {
      found = true;
      EXPECT_EQ(c["simulated_cycles"].get<std::uint64_t>(),
                run_cycles("qgemm", with(shape("64", "48", "80"), {"--timing-only"}), "default"));
    }
  EXPECT_TRUE(found);
}

// conv2d ranks its candidates with their windows priced (im2col or halo), which its default search
// does not: the tuner simulates the default plan wherever the estimate ranks it, reports the cycles
// its run takes, and its best is never slower.
TEST(Tune, Conv2dReportsTheDefaultPlansRunAndNeverDoesWorse) {
  const std::vector<std::string> conv{"--h", "15", "--w", "13", "--c", "5", "--k", "10", "--pad", "same"};
  CliResult r = run_treesim(with({"tune", "conv2d", "--machine", source_path("configs/mini.yaml")}, conv));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(
      std::regex_search(r.out, m,
                        std::regex(R"(best: (\d+) cycles.*the default planner's plan \(estimate rank \d+\) )"
                                   R"(is rank \d+ at (\d+) cycles)")))
      << r.out;
  const std::uint64_t best = std::stoull(m[1]), def = std::stoull(m[2]);
  EXPECT_LE(best, def);
  EXPECT_EQ(def, run_cycles("conv2d", with(conv, {"--timing-only"}), "conv-default"));
}

// docs/timing.md §8.6: the roofline counts no latency, and no GEMM ends before its last load has
// crossed DRAM ((A + B) bytes / DRAM's rate) and one path latency down and one up (`treesim info`'s).
// On the board a 256³ GEMM's floor is 716 cycles against a roofline of 386: no plan beats it.
TEST(Tune, NoCandidateEndsBeforeItsLastLoadAndTwoPathLatencies) {
  const std::string board = source_path("configs/mncore-board.yaml");
  CliResult info = run_treesim({"info", "--machine", board, "--json"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const json machine = json::parse(info.out);
  const double dram_per_cycle =
      machine["dram"]["bytes_per_second"].get<double>() / (machine["clock_ghz"].get<double>() * 1e9);
  const std::uint64_t floor = static_cast<std::uint64_t>(std::ceil(2.0 * 256 * 256 / dram_per_cycle)) +
                              2 * machine["path_latency_cycles"].get<std::uint64_t>();
  EXPECT_EQ(floor, 716u);
  CliResult r = run_treesim(
      with({"tune", "qgemm", "--machine", board, "--json", "--budget", "32"}, shape("256", "256", "256")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json t = json::parse(r.out);
  ASSERT_EQ(t["simulated"].size(), 32u);
  for (const json& c : t["simulated"])
    EXPECT_GE(c["simulated_cycles"].get<std::uint64_t>(), floor) << c.dump();
}

TEST(Tune, CandidatesAreEstimatedOrCountedAsPruned) {
  json t = tune("qgemm", shape("64", "48", "80"));
  std::uint64_t pruned = 0;
  for (const auto& [reason, count] : t["pruned"].items()) pruned += count.get<std::uint64_t>();
  EXPECT_EQ(t["estimated"].get<std::uint64_t>() + pruned, t["enumerated"].get<std::uint64_t>());
  EXPECT_EQ(t["simulated"].size(), 8u);  // the default budget
}

TEST(Tune, BudgetLimitsTheSimulatedCandidates) {
  EXPECT_EQ(tune("qgemm", with(shape("64", "48", "80"), {"--budget", "2"}))["simulated"].size(), 2u);
}

TEST(Tune, TgemmPlanFileRunsVerified) {
  const std::string out = temp_path("tgemm-best.yaml");
  json t = tune("tgemm", with(shape("32", "40", "100"), {"--out", out, "--budget", "3"}));
  ASSERT_FALSE(t["simulated"].empty());
  EXPECT_EQ(run_cycles("tgemm", with(shape("32", "40", "100"), {"--plan-file", out, "--verify"}), "tgemm"),
            t["simulated"][0]["simulated_cycles"].get<std::uint64_t>());
}

TEST(PlanFile, OfAnotherShapeIsAOneLineErrorNamingTheFile) {
  const std::string out = temp_path("shape-best.yaml");
  tune("qgemm", with(shape("64", "48", "80"), {"--out", out, "--budget", "1"}));
  CliResult r =
      run_treesim(with({"run", "qgemm", "--machine", source_path("configs/mini.yaml"), "--plan-file", out},
                       shape("64", "48", "81")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(out + ": the plan is for k = 80, the problem has 81"), std::string::npos) << r.err;
}

TEST(PlanFile, UnknownFieldNamesItsLine) {
  const std::string f =
      write_temp_file("bad-plan.yaml", "kernel: qgemm\nmachine: mini\nm: 4\nn: 4\nk: 4\ntiles: 3\n");
  CliResult r =
      run_treesim(with({"run", "qgemm", "--machine", source_path("configs/mini.yaml"), "--plan-file", f},
                       shape("4", "4", "4")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(f + ":6: unknown field 'tiles'"), std::string::npos) << r.err;
}

TEST(PlanFile, ThatCannotWorkSaysWhy) {
  const std::string f = write_temp_file(
      "k-top.yaml",
      "kernel: qgemm\nmachine: mini\nm: 4\nn: 4\nk: 64\nsplit: {M: [], N: [], K: [L1B]}\nm_passes_factor: 1\n"
      "min_k_steps: 1\n");
  CliResult r =
      run_treesim(with({"run", "qgemm", "--machine", source_path("configs/mini.yaml"), "--plan-file", f},
                       shape("4", "4", "64")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("the plan cannot work: K is split over L1B"), std::string::npos) << r.err;
}

// A plan file's `buffers` (two or three LM buffers per streamed operand): three run bit-exactly on
// both GEMM kernels and every weight encoding, in fewer cycles here (the loads' latency hidden),
// a file without the field has two, and anything else is refused naming the field.
std::string buffers_plan(const char* kernel, const std::string& buffers) {
  return write_temp_file(std::string(kernel) + "-buffers.yaml",
                         std::string("kernel: ") + kernel +
                             "\nmachine: mini\nm: 96\nn: 80\nk: 200\nsplit: {M: [MAB, PE], N: [L1B], K: []}\n"
                             "m_passes_factor: 1\npass_splits: 0\nmin_k_steps: 16\n" +
                             buffers);
}

TEST(PlanFile, ThreeBuffersRunVerifiedAndHideTheLoadsLatency) {
  const auto args = with(shape("96", "80", "200"), {"--verify", "--plan-file"});
  const std::uint64_t two = run_cycles("qgemm", with(args, {buffers_plan("qgemm", "buffers: 2\n")}), "b2");
  const std::uint64_t three = run_cycles("qgemm", with(args, {buffers_plan("qgemm", "buffers: 3\n")}), "b3");
  EXPECT_GT(two, 0u);
  EXPECT_LT(three, two);
  EXPECT_EQ(run_cycles("qgemm", with(args, {buffers_plan("qgemm", "")}), "b-none"), two);
  for (const char* e : {"dpt", "bct", "base3", "int8"})
    EXPECT_GT(run_cycles("tgemm", with(args, {buffers_plan("tgemm", "buffers: 3\n"), "--weight-encoding", e}),
                         std::string("t3-") + e),
              0u)
        << e;
}

TEST(PlanFile, BuffersOtherThanTwoOrThreeAreRefused) {
  for (const char* bad : {"buffers: 1\n", "buffers: 4\n"}) {
    const std::string f = buffers_plan("qgemm", bad);
    CliResult r =
        run_treesim(with({"run", "qgemm", "--machine", source_path("configs/mini.yaml"), "--plan-file", f},
                         shape("96", "80", "200")));
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(f + ":10: 'buffers': expected 2 or 3"), std::string::npos) << r.err;
  }
}

TEST(PlanFile, WithAGivenLayoutIsRefused) {
  const std::string out = temp_path("layout-best.yaml");
  tune("qgemm", with(shape("64", "48", "80"), {"--out", out, "--budget", "1"}));
  CliResult r = run_treesim(with({"run", "qgemm", "--machine", source_path("configs/mini.yaml"),
                                  "--plan-file", out, "--layout-a", "((2_L1B, 32:80), (80:1))"},
                                 shape("64", "48", "80")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--plan-file: the plan fixes the layouts: drop --layout-a"), std::string::npos)
      << r.err;
}

TEST(TuneChain, PlanFileRunsTheChainVerified) {
  const std::string spec =
      write_temp_file("mlp.yaml", "m: 32\nwidths: [48, 64, 64, 16]\ncandidates_per_layer: 4\n");
  const std::string out = temp_path("chain-plan.yaml");
  CliResult r = run_treesim(
      {"tune", "chain", spec, "--machine", source_path("configs/mini.yaml"), "--out", out, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json t = json::parse(r.out);
  EXPECT_EQ(t["layers"].size(), 3u);
  EXPECT_LE(t["estimated_cycles"].get<double>(), t["independent_estimated_cycles"].get<double>());
  EXPECT_GT(run_cycles("chain", {"--spec", spec, "--plan-file", out, "--verify"}, "chain"), 0u);
}

TEST(TuneChain, BadSpecIsAOneLineErrorNamingTheField) {
  const std::string spec = write_temp_file("bad-mlp.yaml", "m: 32\nwidths: [48, 0]\n");
  CliResult r = run_treesim({"tune", "chain", spec, "--machine", source_path("configs/mini.yaml")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(spec + ":2: 'widths': expected positive whole widths"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace treesim::testing
