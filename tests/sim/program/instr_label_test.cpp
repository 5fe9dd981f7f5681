// Trace labels name an instruction's kind, index and operand, without spaces.
#include <gtest/gtest.h>

#include "sim/program/instr_label.h"
#include "sim/program/program_text.h"

namespace treesim::program {
namespace {

TEST(InstrLabel, NamesKindIndexAndOperand) {
  const std::vector<std::string> levels = {"L2B", "L1B", "MAB", "PE"};
  const Program p = parse_program(
      "tensor A shape=64,32\ntensor C shape=64,128\n"
      "load tensor=A layout=\"((64:32), (32:1))\"\n"
      "load tensor=A layout=\"((16:32), (32:1))\" offset=16,0 shape=16,32\n"
      "mac a=0 b=64 c=128 m=32 n=128 k=64\n"
      "requant src=0 dst=64 rows=4 cols=8 multiplier=1 shift=0\n"
      "copy src=0 dst=64 bytes=256\n"
      "broadcast level=L1B src=0 dst=64 bytes=64\n"
      "reduce level=MAB src=0 dst=64 count=128\n"
      "store tensor=C layout=\"((64:128), (128:1))\" offset=0,0 shape=64,128\n",
      "t", levels);
  const std::vector<std::string> want = {"load#0:A[0:64,0:32]", "load#1:A[16:32,0:32]", "mac#2:32x128x64",
                                         "requant#3:4x8",       "copy#4:256B",          "broadcast#5:L1B:64B",
                                         "reduce#6:MAB:128x4B", "store#7:C[0:64,0:128]"};
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(instr_label(p, i, levels), want[i]);
}

}  // namespace
}  // namespace treesim::program
