// `--timing-only` gives exactly the report of a full run (cycles, traffic, per-port and per-PE
// counters, utilizations, energy), with "functional": false, over a grid of commands, shapes,
// layouts and machines. Every later kernel keeps this test: it runs every case of the grid.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace treesim::testing {
namespace {

using json = nlohmann::json;

struct Case {
  std::string name;
  std::vector<std::string> args;
};

json report_of(std::vector<std::string> args, const std::string& path) {
  args.insert(args.end(), {"-q", "--report", path});
  CliResult r = run_treesim(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(read_text(path).empty() ? "{}" : read_text(path));
}

class TimingOnly : public ::testing::TestWithParam<Case> {};

TEST_P(TimingOnly, ReportEqualsTheFullRunsButForFunctional) {
  const Case& c = GetParam();
  json full = report_of(c.args, temp_path(c.name + "-full.json"));
  std::vector<std::string> args = c.args;
  args.push_back("--timing-only");
  json timing = report_of(args, temp_path(c.name + "-timing.json"));
  EXPECT_EQ(full["functional"], true);
  EXPECT_EQ(timing["functional"], false);
  for (json* j : {&full, &timing}) {
    j->erase("functional");
    j->erase("verify");
  }
  EXPECT_EQ(timing, full) << json::diff(full, timing).dump();
}

std::string cfg(const char* name) { return source_path(std::string("configs/") + name); }

INSTANTIATE_TEST_SUITE_P(
    Grid, TimingOnly,
    ::testing::Values(
        Case{"qgemm_mini_8",
             {"run", "qgemm", "--machine", cfg("mini.yaml"), "--m", "8", "--n", "8", "--k", "8"}},
        Case{"qgemm_mini_odd",
             {"run", "qgemm", "--machine", cfg("mini.yaml"), "--m", "37", "--n", "50", "--k", "129",
              "--per-channel"}},
        Case{"qgemm_mini_u8_kmab",
             {"run", "qgemm", "--machine", cfg("mini.yaml"), "--m", "16", "--n", "24", "--k", "300",
              "--dtype-a", "u8", "--layout-a", "((4_MAB, 4:300), (300:1))"}},
        Case{"qgemm_mini_per_channel_n1",
             {"run", "qgemm", "--machine", cfg("mini.yaml"), "--m", "9", "--n", "1", "--k", "33",
              "--per-channel"}},
        Case{"qgemm_mini_no_bias",
             {"run", "qgemm", "--machine", cfg("mini.yaml"), "--m", "20", "--n", "12", "--k", "70",
              "--no-bias"}},
        Case{"qgemm_mini_w4_odd",
             {"run", "qgemm", "--machine", data_path("machines/mini-w4.yaml"), "--m", "37", "--n", "50",
              "--k", "129", "--per-channel"}},
        Case{"qgemm_die_128",
             {"run", "qgemm", "--machine", cfg("mncore-die.yaml"), "--m", "128", "--n", "96", "--k", "200"}},
        Case{"tgemm_mini_odd_dpt",
             {"run", "tgemm", "--machine", cfg("mini.yaml"), "--m", "37", "--n", "19", "--k", "1003",
              "--per-channel"}},
        Case{"tgemm_mini_gemv_bct",
             {"run", "tgemm", "--machine", cfg("mini.yaml"), "--m", "1", "--n", "1024", "--k", "1000",
              "--weight-encoding", "bct"}},
        Case{"tgemm_mini_kmab_base3",
             {"run", "tgemm", "--machine", cfg("mini.yaml"), "--m", "16", "--n", "24", "--k", "303",
              "--weight-encoding", "base3", "--layout-a", "((4_MAB, 4:303), (303:1))"}},
        Case{"tgemm_mini_int8",
             {"run", "tgemm", "--machine", cfg("mini.yaml"), "--m", "8", "--n", "64", "--k", "400",
              "--weight-encoding", "int8", "--dtype-a", "u8"}},
        Case{"tgemm_w4_odd",
             {"run", "tgemm", "--machine", data_path("machines/mini-w4.yaml"), "--m", "7", "--n", "50", "--k",
              "129", "--per-channel"}},
        Case{
            "tgemm_board_dpt",
            {"run", "tgemm", "--machine", cfg("mncore-board.yaml"), "--m", "64", "--n", "200", "--k", "301"}},
        Case{"relu_mini", {"run", "relu", "--machine", cfg("mini.yaml"), "--n", "1000"}},
        Case{"place_mini_blocked",
             {"place", "--machine", cfg("mini.yaml"), "--shape", "12,8", "--layout", "((4_PE, 3:8), (8:1))"}},
        Case{"place_mini_padded",
             {"place", "--machine", cfg("mini.yaml"), "--shape", "10,7", "--layout",
              "(10,7)/((2_L1B, 4_MAB, 4_PE, 1:8), (8:1))"}},
        Case{"place_board_half",
             {"place", "--machine", cfg("mncore-board.yaml"), "--shape", "1024,512", "--layout",
              "((8_L2B, 8_L1B, 16:8), (16_MAB, 8:1, 4_PE))"}},
        Case{"exec_gemm", {"exec", source_path("docs/examples/gemm.prog"), "--machine", cfg("mini.yaml")}},
        Case{"exec_sum", {"exec", source_path("docs/examples/sum.prog"), "--machine", cfg("mini.yaml")}},
        Case{"spmv_mini_csr_rows",
             {"run", "spmv", "--machine", cfg("mini.yaml"), "--matrix",
              source_path("tests/data/sparse/pores_1.mtx")}},
        Case{"spmv_mini_dcsc_nnz",
             {"run", "spmv", "--machine", cfg("mini.yaml"), "--matrix",
              source_path("tests/data/sparse/g20.rua"), "--encoding", "dcsc", "--partition", "nnz"}},
        Case{"spmv_mini_bsr_2d",
             {"run", "spmv", "--machine", cfg("mini.yaml"), "--rows", "90", "--cols", "70", "--encoding",
              "bsr2x2", "--partition", "2d"}},
        Case{"spmv_board_ell_2d",
             {"run", "spmv", "--machine", cfg("mncore-board.yaml"), "--rows", "5000", "--nnz-per-row", "3",
              "--encoding", "ell4", "--partition", "2d"}},
        Case{"spmm_mini_24_nnz",
             {"run", "spmm", "--machine", cfg("mini.yaml"), "--rows", "50", "--cols", "64", "--encoding",
              "2:4", "--n", "6", "--partition", "nnz"}}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace treesim::testing
