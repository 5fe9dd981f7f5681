// A requant whose accumulators break the multiply contract must be refused as quant mbqm refuses
// the same values, not saturate silently to 127.
#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace treesim::testing {
namespace {

TEST(RequantContract, AccumulatorOutsideTheContractIsRefused) {
  // Every LM byte of A is 0x7f, so the int32 accumulator at lm 0 is 0x7f7f7f7f; shifting it left
  // by 1 overflows int32, which quant mbqm rejects ("x * 2^left_shift overflows int32").
  const std::string p =
      write_temp_file("contract.txt",
                      "tensor A shape=128,8 dtype=int8\n"
                      "load tensor=A layout=\"((4_PE, 32:8), (8:1))\" lm=0\n"
                      "requant src=0 dst=512 rows=1 cols=1 multiplier=1073741824 shift=1\n");
  const std::string a =
      write_temp_file("contract.npy", std::string("\x93NUMPY\x01\x00\x46\x00", 10) +
                                          "{'descr': '|i1', 'fortran_order': False, 'shape': "
                                          "(128, 8), }        \n" +
                                          std::string(1024, '\x7f'));
  const CliResult r =
      run_treesim({"exec", p, "--machine", source_path("configs/mini.yaml"), "--input", "A=" + a});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("overflows int32"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace treesim::testing
