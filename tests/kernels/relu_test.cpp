// relu through the contract: its reference is the ReLU of the requantized input, and a vector the
// LMs cannot hold at once is streamed in several passes and still verifies.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kernels/registry.h"
#include "sim/machine/machine_file.h"
#include "tests/configs.h"
#include "tests/test_support.h"

namespace treesim::kernels {
namespace {

std::unique_ptr<Problem> relu(std::uint64_t n, const machine::MachineConfig& m) {
  Result<Options> o = parse_options(find_kernel("relu")->options, {{"n", std::to_string(n)}});
  EXPECT_TRUE(o.ok());
  auto p = find_kernel("relu")->make_problem(o.value(), m);
  EXPECT_TRUE(p.ok());
  return std::move(p.value());
}

TEST(Relu, ReferenceIsNeverNegativeAndClampsHalfTheInputsToZero) {
  machine::MachineConfig m = testing::config("mini");
  auto p = relu(2000, m);
  Result<DramImage> y = p->reference();
  ASSERT_TRUE(y.ok());
  std::uint64_t zeros = 0;
  for (std::uint8_t b : y->at("Y")) {
    EXPECT_GE(static_cast<std::int8_t>(b), 0);
    zeros += b == 0;
  }
  // X is uniform in [-32768, 32767]: about half are negative.
  EXPECT_GT(zeros, 800u);
  EXPECT_LT(zeros, 1200u);
}

TEST(Relu, MoreThanTheLmsHoldRunsInSeveralPassesAndVerifies) {
  // mini: 32 PEs of 64 KiB, 10 bytes per element per PE: 6553 elements per PE and pass.
  const std::string report = testing::temp_path("relu-passes.json");
  auto r = testing::run_treesim({"run", "relu", "--machine", testing::source_path("configs/mini.yaml"), "--n",
                                 "300001", "--verify", "--quiet", "--report", report});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(testing::read_text(report));
  EXPECT_EQ(j["passes"], 2);
  EXPECT_EQ(j["verify"]["ok"], true);
  EXPECT_EQ(j["dram"]["read_bytes"], 300001 * 4) << j.dump();
}

TEST(Relu, AProblemThatIsNotReluIsRefusedAsAValue) {
  machine::MachineConfig m = testing::config("mini");
  auto p = relu(10, m);
  Plan foreign;
  foreign.mapping = 42;
  EXPECT_FALSE(p->program(foreign, m).ok());
}

}  // namespace
}  // namespace treesim::kernels
