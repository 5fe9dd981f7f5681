// `--threads N` splits a step's PEs over N host threads: every PE works on its own LM, so the run's
// report and its outputs are the same bytes whatever N is. Each case is big enough that its MACs,
// requants, decodes or sparse walks are split (the die's 2,048 PEs).
#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace treesim::testing {
namespace {

struct ThreadsCase {
  std::string name;
  std::vector<std::string> args;
};

// The report and the --out file of one run with `threads` threads.
std::pair<std::string, std::string> run_with(const ThreadsCase& c, const std::string& threads) {
  std::vector<std::string> args = c.args;
  const std::string report = temp_path(c.name + "-" + threads + ".json");
  const std::string out = temp_path(c.name + "-" + threads + ".npy");
  args.insert(args.end(), {"-q", "--verify", "--threads", threads, "--report", report, "--out", out});
  const CliResult r = run_treesim(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return {read_text(report), read_text(out)};
}

class Threads : public ::testing::TestWithParam<ThreadsCase> {};

TEST_P(Threads, ReportAndOutputsDoNotDependOnTheThreadCount) {
  const auto one = run_with(GetParam(), "1");
  ASSERT_FALSE(one.first.empty());
  ASSERT_FALSE(one.second.empty());
  for (const char* n : {"2", "3", "7"}) {
    const auto many = run_with(GetParam(), n);
    EXPECT_EQ(many.first, one.first) << n << " threads: report";
    EXPECT_EQ(many.second, one.second) << n << " threads: output";
  }
}

std::string machine_file(const char* name) { return source_path(std::string("configs/") + name); }

INSTANTIATE_TEST_SUITE_P(
    Die, Threads,
    ::testing::Values(ThreadsCase{"qgemm_per_channel",
                                  {"run", "qgemm", "--machine", machine_file("mncore-die.yaml"), "--m", "512",
                                   "--n", "384", "--k", "300", "--per-channel", "--seed", "5"}},
                      ThreadsCase{"tgemm_dpt",
                                  {"run", "tgemm", "--machine", machine_file("mncore-die.yaml"), "--m", "256",
                                   "--n", "512", "--k", "1003", "--seed", "2"}},
                      ThreadsCase{"spmv_2d",
                                  {"run", "spmv", "--machine", machine_file("mncore-die.yaml"), "--rows",
                                   "20000", "--nnz-per-row", "5", "--partition", "2d"}}),
    [](const ::testing::TestParamInfo<ThreadsCase>& info) { return info.param.name; });

}  // namespace
}  // namespace treesim::testing
