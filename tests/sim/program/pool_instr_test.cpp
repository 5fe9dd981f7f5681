// What the checker refuses of the pooling instructions (pool_max, pool_sum).
#include <gtest/gtest.h>

#include "sim/program/checked_program.h"
#include "tests/configs.h"

namespace treesim::program {
namespace {

std::string first_error(const Instr& instr) {
  Program p;
  p.instrs.push_back(instr);
  const CheckedProgram c = check_program(p, testing::mini());
  return c.ok() ? "" : c.errors.front().message();
}

TEST(PoolSumCheck, ASumOverlappingItsWindowsIsRefused) {
  EXPECT_EQ(first_error(PoolSum{0, 4096, 3, 2, 9, DType::kUInt8, 128}), "");
  EXPECT_NE(first_error(PoolSum{0, 40, 3, 2, 9, DType::kUInt8, 128}).find("must not overwrite the windows"),
            std::string::npos);
}

TEST(PoolSumCheck, AZeroPointOutsideTheTypeIsRefused) {
  EXPECT_NE(first_error(PoolSum{0, 4096, 3, 2, 9, DType::kInt8, 128}).find("zero"), std::string::npos);
}

TEST(PoolSumCheck, SumsPastTheLmAreRefused) {
  EXPECT_NE(first_error(PoolSum{0, 65536 - 8, 3, 2, 9, DType::kInt8, 0}), "");
}

TEST(PoolMaxCheck, ZeroTapsAreRefused) {
  EXPECT_NE(first_error(PoolMax{0, 4096, 3, 2, 0, DType::kInt8}).find("taps"), std::string::npos);
}

}  // namespace
}  // namespace treesim::program
