// softmax on the PE vector unit: bit-exact against its host reference on every shipped MN-Core
// machine and mini, in one pass and in several, with a timing-only run taking the same cycles; its
// outputs are probabilities (each row sums to about 1); what it cannot run is one line.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/registry.h"
#include "tests/configs.h"
#include "tests/test_support.h"

namespace treesim::kernels {
namespace {

nlohmann::json run_softmax(const std::string& machine, std::vector<std::string> extra) {
  const std::string report = testing::temp_path("softmax-" + machine + ".json");
  std::vector<std::string> args{
      "run",     "softmax",  "--machine", testing::source_path("configs/" + machine + ".yaml"),
      "--quiet", "--report", report};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = testing::run_treesim(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(testing::read_text(report)) : nlohmann::json();
}

struct Case {
  const char* machine;
  const char* rows;
  const char* cols;
};

TEST(Softmax, VerifiesOnEveryMachineAndTimingOnlyTakesTheSameCycles) {
  // mini: 64 KiB LMs, a row of 1000 values takes 8,016 bytes in two buffers: 8 rows per PE and pass,
  // so 600 rows over 32 PEs run in 3 passes. The MN-Core machines: rows fewer, equal to and more
  // than their PEs.
  for (const Case& c : {Case{"mini", "600", "1000"}, Case{"mini", "7", "3"}, Case{"mncore-die", "2049", "64"},
                        Case{"mncore-board", "8192", "16"}, Case{"mncore2", "5000", "128"}}) {
    const nlohmann::json full =
        run_softmax(c.machine, {"--rows", c.rows, "--cols", c.cols, "--scale", "0.125", "--verify"});
    ASSERT_FALSE(full.is_null()) << c.machine;
    EXPECT_EQ(full["verify"]["ok"], true) << c.machine << " " << full["verify"].dump();
    EXPECT_GT(full["work"]["vector_lane_cycles"].get<std::uint64_t>(), 0u);
    const nlohmann::json timing =
        run_softmax(c.machine, {"--rows", c.rows, "--cols", c.cols, "--scale", "0.125", "--timing-only"});
    EXPECT_EQ(timing["cycles"], full["cycles"]) << c.machine;
    if (std::string(c.machine) == "mini" && std::string(c.rows) == "600") {
      EXPECT_EQ(full["passes"], 3);
    }
  }
}

TEST(Softmax, EachRowOfTheReferenceSumsToAboutOne) {
  const Kernel* k = find_kernel("softmax");
  Result<Options> o = parse_options(k->options, {{"rows", "9"}, {"cols", "300"}});
  ASSERT_TRUE(o.ok());
  auto p = k->make_problem(o.value(), testing::mini());
  ASSERT_TRUE(p.ok());
  Result<DramImage> y = p.value()->reference();
  ASSERT_TRUE(y.ok());
  std::vector<float> v(9 * 300);
  std::memcpy(v.data(), y->at("Y").data(), v.size() * 4);
  for (int r = 0; r < 9; ++r) {
    double sum = 0;
    for (int c = 0; c < 300; ++c) {
      EXPECT_GE(v[r * 300 + c], 0.0f);
      sum += v[r * 300 + c];
    }
    EXPECT_NEAR(sum, 1.0, 1e-5) << r;
  }
}

TEST(Softmax, WhatItCannotRunIsOneLine) {
  const std::string mini = testing::source_path("configs/mini.yaml");
  for (const std::vector<std::string>& bad : {std::vector<std::string>{"--rows", "4", "--cols", "9000"},
                                              {"--rows", "4", "--cols", "8", "--scale", "0"},
                                              {"--rows", "4", "--cols", "8", "--scale", "fast"},
                                              {"--rows", "4294967296", "--cols", "4294967296"},
                                              {"--rows", "4", "--cols", "8", "--numerics", "integer"}}) {
    std::vector<std::string> args{"run", "softmax", "--machine", mini};
    args.insert(args.end(), bad.begin(), bad.end());
    const auto r = testing::run_treesim(args);
    EXPECT_EQ(r.exit_code, 2) << bad[3];
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace treesim::kernels
