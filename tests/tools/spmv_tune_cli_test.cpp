// `treesim tune spmv|spmm`: on five matrices of different structure (and with LMs small enough to
// need passes) the estimates are within 10% of the simulation, the best plan is at least as fast as
// `--encoding csr --partition rows`, its plan file runs bit-exactly in the cycles the tuner reported,
// and bad plan files are one-line errors naming the file, the line and the field.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

#include "tests/test_support.h"
#include "tests/tools/verified_run.h"

namespace treesim {
namespace spmv_tune_cli_test {  // named: unity builds batch test files together

using json = nlohmann::json;
using testing::mini_with_lm;
using testing::run_treesim;
using testing::source_path;

std::string data(const std::string& name) { return source_path("tests/data/sparse/" + name); }

struct Case {
  const char* name;
  const char* matrix;  // in tests/data/sparse
  const char* lm;      // mini's LM bytes ("" = as it is)
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

// A mesh, an unsymmetric and a symmetric real matrix, a tiny one and a METIS graph; two with LMs
// that take passes.
const Case kCases[] = {{"g20_mesh", "g20.rua", ""},
                       {"utm300_unsymmetric", "utm300.rua", ""},
                       {"lund_a_symmetric", "lund_a.mtx", ""},
                       {"pores_1_small", "pores_1.mtx", ""},
                       {"mgraph", "test.mgraph", ""},
                       {"utm300_in_passes", "utm300.rua", "1KiB"},
                       {"g20_in_passes", "g20.rua", "640"}};

std::string machine_of(const Case& c) {
  return *c.lm ? mini_with_lm(c.lm) : source_path("configs/mini.yaml");
}

json tune(const std::string& kernel, const std::string& machine, std::vector<std::string> extra) {
  std::vector<std::string> args{"tune", kernel, "--machine", machine, "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_treesim(args);
  EXPECT_EQ(r.exit_code, 0) << testing::joined(extra) << r.err;
  return json::parse(r.out.empty() ? "{}" : r.out);
}

json run_report(const std::string& kernel, const std::string& machine, std::vector<std::string> extra) {
  static int n = 0;
  const std::string report = testing::temp_path("tune-run-" + std::to_string(n++) + ".json");
  std::vector<std::string> args{"run", kernel, "--machine", machine, "-q", "--report", report};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_treesim(args);
  EXPECT_EQ(r.exit_code, 0) << testing::joined(extra) << r.err;
  return r.exit_code == 0 ? json::parse(testing::read_text(report)) : json{};
}

class SpmvTune : public ::testing::TestWithParam<Case> {};

TEST_P(SpmvTune, EstimatesAreWithinTenPercentOfTheSimulation) {
  const Case& c = GetParam();
  const json t = tune("spmv", machine_of(c), {"--matrix", data(c.matrix), "--budget", "6"});
  ASSERT_FALSE(t["simulated"].empty());
  for (const json& s : t["simulated"]) {
    const double est = s["estimated_cycles"], sim = s["simulated_cycles"];
    EXPECT_LE(std::abs(est - sim), 0.10 * sim) << c.name << ": " << s["plan"];
  }
}

TEST_P(SpmvTune, BestIsAtLeastAsFastAsCsrByRows) {
  const Case& c = GetParam();
  const std::string machine = machine_of(c);
  const json t = tune("spmv", machine, {"--matrix", data(c.matrix), "--budget", "3"});
  ASSERT_FALSE(t["simulated"].empty());
  const json plain =
      run_report("spmv", machine,
                 {"--matrix", data(c.matrix), "--encoding", "csr", "--partition", "rows", "--timing-only"});
  EXPECT_LE(t["simulated"][0]["simulated_cycles"].get<std::uint64_t>(), plain["cycles"].get<std::uint64_t>())
      << c.name;
}

INSTANTIATE_TEST_SUITE_P(Matrices, SpmvTune, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

// The tuner's plan file names its encoding, partition and passes; run with it, the matrix is packed
// as the plan places it (not as the options would) and the run is bit-exact in the tuned cycles.
TEST(SpmvTuneFile, PlanFileRunsVerifiedInTheTunedCycles) {
  for (const char* kernel : {"spmv", "spmm"}) {
    const std::string machine = mini_with_lm("1KiB"),
                      out = testing::temp_path(std::string(kernel) + "-plan.yaml");
    std::vector<std::string> a{"--matrix", data("utm300.rua")};
    if (std::string(kernel) == "spmm") a.insert(a.end(), {"--n", "3"});
    std::vector<std::string> t_args = a;
    t_args.insert(t_args.end(), {"--budget", "4", "--out", out});
    const json t = tune(kernel, machine, t_args);
    ASSERT_FALSE(t["simulated"].empty()) << kernel;
    const std::string file = testing::read_text(out);
    EXPECT_NE(file.find("kernel: " + std::string(kernel)), std::string::npos) << file;
    a.insert(a.end(), {"--plan-file", out, "--verify"});
    const json r = run_report(kernel, machine, a);
    EXPECT_EQ(r["verify"]["ok"], true) << kernel;
    EXPECT_EQ(r["cycles"], t["simulated"][0]["simulated_cycles"]) << kernel;
  }
}

TEST(SpmvTuneFile, BadPlanFilesAreOneLineErrors) {
  const std::string machine = source_path("configs/mini.yaml"),
                    good = testing::temp_path("good-spmv-plan.yaml");
  tune("spmv", machine, {"--matrix", data("g20.rua"), "--budget", "1", "--out", good});
  const std::string text = testing::read_text(good);
  // Each: the line that starts with `key` replaced by `line`, and what the error says.
  struct Bad {
    std::string key, line, says;
  };
  const Bad bad[] = {
      {"kernel:", "kernel: spmm", "the plan is for kernel 'spmm'"},
      {"machine:", "machine: mncore-die", "the plan is for machine 'mncore-die'"},
      {"rows:", "rows: 401", "the plan is for a 401x400 matrix"},
      {"partition:", "partition: all", "'partition': expected rows, nnz or 2d, got 'all'"},
      {"partition:", "partitions: rows", "unknown field 'partitions'"},
      {"row_blocks:", "row_blocks: 1000", "'row_blocks': at most"},
      {"col_tiles:", "col_tiles: 0", "'col_tiles': expected a whole number"},
      {"col_tiles:", "col_tiles: [1]", "'col_tiles': expected a value"},
      {"encoding:", "encoding: \"csr/12\"", "'encoding': 'csr/12'"},
      {"encoding:", "encoding: \"ell1\"", "'encoding': PE "},
      {"encoding:", "encoding:", "'encoding': expected a value, got nothing"},
      {"entries:", "entries: 1920\nn: 4", "unknown field 'n'"},
      {"col_tiles:", "col_tiles: 400000", "'col_tiles': at most 1920 (an entry per tile), got 400000"},
  };
  int n = 0;
  for (const Bad& b : bad) {
    std::string t = text;
    const std::size_t at = t.find("\n" + b.key);
    ASSERT_NE(at, std::string::npos) << b.key << " in\n" << text;
    t.replace(at + 1, t.find('\n', at + 1) - at - 1, b.line);
    const std::string path = testing::temp_path("bad-spmv-plan-" + std::to_string(n++) + ".yaml");
    std::ofstream(path) << t;
    const auto r =
        run_treesim({"run", "spmv", "--machine", machine, "--matrix", data("g20.rua"), "--plan-file", path});
    EXPECT_EQ(r.exit_code, 2) << b.says;
    EXPECT_NE(r.err.find(b.says), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(path + ":"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

// A plan file of several passes in an encoding and partition other than the options': the run
// places A as the file says (the report's passes, encoding and partition), bit-exact, in the
// cycles of the same plan run timing-only; the options' encoding need not even store the matrix.
TEST(SpmvTuneFile, APlanFileOfPassesRunsAsItSays) {
  const std::string machine = mini_with_lm("2KiB"), plan = testing::temp_path("passes-plan.yaml");
  std::ofstream(plan) << "kernel: spmv\nmachine: mini\nrows: 400\ncols: 400\nentries: 1920\n"
                         "encoding: \"bsr2x2/16\"\npartition: 2d\nrow_blocks: 3\ncol_tiles: 5\n";
  const std::vector<std::string> a{"--matrix", data("g20.rua"), "--encoding", "ell2", "--plan-file", plan};
  std::vector<std::string> full = a, timing = a;
  full.push_back("--verify"), timing.push_back("--timing-only");
  const json r = run_report("spmv", machine, full), t = run_report("spmv", machine, timing);
  EXPECT_EQ(r["verify"]["ok"], true);
  EXPECT_GT(r["passes"].get<int>(), 3) << "3 row blocks, some of them in column tiles";
  EXPECT_NE(r["info"]["plan"].get<std::string>().find("3 row blocks in column tiles"), std::string::npos)
      << r["info"]["plan"];
  EXPECT_EQ(r["info"]["partition"], "2d");
  EXPECT_NE(r["info"]["encoding"].get<std::string>().find("posWidth = 16"), std::string::npos) << r["info"];
  EXPECT_EQ(r["cycles"], t["cycles"]);
}

// The tuner still ranks the matrix's plans when the options' encoding cannot store it, and says so.
TEST(SpmvTuneFile, OptionsThatCannotStoreTheMatrixAreNoCandidate) {
  const auto r = run_treesim({"tune", "spmv", "--machine", source_path("configs/mini.yaml"), "--matrix",
                              data("g20.rua"), "--encoding", "ell2", "--budget", "2"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("the default planner's plan cannot run: --encoding: ell2:"), std::string::npos)
      << r.out;
}

TEST(SpmvTuneFile, OnePlanFileIsNotComparedAcrossPartitions) {
  const auto r = run_treesim({"run", "spmv", "--machine", source_path("configs/mini.yaml"), "--matrix",
                              data("g20.rua"), "--partition", "all", "--plan-file", "p.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--plan-file: runs the one plan in the file"), std::string::npos) << r.err;
}

}  // namespace spmv_tune_cli_test
}  // namespace treesim
