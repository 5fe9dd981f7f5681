#include "sim/program/relocate.h"

#include <gtest/gtest.h>

#include "sim/layout/parse.h"
#include "sim/program/program_text.h"
#include "tests/configs.h"

namespace treesim::program {
namespace relocate_test {

const std::vector<std::string> kLevels = {"L2B", "L1B", "MAB", "PE"};

// One instruction of every kind, and the same with each LM offset 1000 higher.
const char* kProgram = R"P(tensor A shape=12,8 dtype=int8
tensor X shape=1,6,5,4 dtype=int8
load tensor=A layout="((4_PE, 3:8), (8:1))" lm=0
load tensor=X layout="((30:36), (36:1))" lm=8 offset=0,0 shape=30,36 window=3,3,1,1,1,1,1,1,6,5,0,4 halo=2000
mac a=0 b=64 c=128 m=3 n=4 k=8
dpt_decode src=0 dst=512 bytes=8
ternary_mac a=0 w=512 c=1024 m=3 n=4 k=8
requant src=128 dst=256 rows=3 cols=4 bias=300 multiplier=1073741824 shift=-1
requant src=128 dst=256 rows=3 cols=4 multiplier_lm=400 shift_lm=416
copy src=0 dst=2048 bytes=24
broadcast level=MAB src=0 dst=4096 bytes=16
scatter level=L1B src=0 dst=4096 bytes=4
gather level=board src=0 dst=4096 bytes=4
reduce level=L2B src=128 dst=8192 count=12
sparse_mac encoding="#sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>" a=0 a_bytes=96 b=128 b_rows=8 n=2 c=256 c_rows=4 entries=5,0 segments=4,4
convert tensor=A from="((4_PE, 3:8), (8:1))" src=0 to="((3:8, 4_PE), (8:1))" dst=16384
store tensor=A layout="((4_PE, 3:8), (8:1))" lm=0
pool_max src=0 dst=4096 rows=3 channels=2 taps=4
pool_sum src=0 dst=4096 rows=3 channels=2 taps=4
add a=0 b=64 dst=0 count=64
)P";

const char* kMoved = R"P(tensor A shape=12,8 dtype=int8
tensor X shape=1,6,5,4 dtype=int8
load tensor=A layout="((4_PE, 3:8), (8:1))" lm=1000
load tensor=X layout="((30:36), (36:1))" lm=1008 offset=0,0 shape=30,36 window=3,3,1,1,1,1,1,1,6,5,0,4 halo=3000
mac a=1000 b=1064 c=1128 m=3 n=4 k=8
dpt_decode src=1000 dst=1512 bytes=8
ternary_mac a=1000 w=1512 c=2024 m=3 n=4 k=8
requant src=1128 dst=1256 rows=3 cols=4 bias=1300 multiplier=1073741824 shift=-1
requant src=1128 dst=1256 rows=3 cols=4 multiplier_lm=1400 shift_lm=1416
copy src=1000 dst=3048 bytes=24
broadcast level=MAB src=1000 dst=5096 bytes=16
scatter level=L1B src=1000 dst=5096 bytes=4
gather level=board src=1000 dst=5096 bytes=4
reduce level=L2B src=1128 dst=9192 count=12
sparse_mac encoding="#sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>" a=1000 a_bytes=96 b=1128 b_rows=8 n=2 c=1256 c_rows=4 entries=5,0 segments=4,4
convert tensor=A from="((4_PE, 3:8), (8:1))" src=1000 to="((3:8, 4_PE), (8:1))" dst=17384
store tensor=A layout="((4_PE, 3:8), (8:1))" lm=1000
pool_max src=1000 dst=5096 rows=3 channels=2 taps=4
pool_sum src=1000 dst=5096 rows=3 channels=2 taps=4
add a=1000 b=1064 dst=1000 count=64
)P";

TEST(RelocateLm, EveryLmOffsetOfEveryKindMovesAndNothingElse) {
  const Program p = parse_program(kProgram, "p.txt", kLevels);
  EXPECT_EQ(print_program(relocate_lm(p, 1000), kLevels),
            print_program(parse_program(kMoved, "moved.txt", kLevels), kLevels));
}

TEST(RelocateLm, TheExtentIsTheHighestLmByteAndMovesWithTheProgram) {
  const machine::MachineConfig m = testing::mini();
  // 30×36 slots from 0 and the halo patch (the input, 120 bytes) right after them.
  const Program p = parse_program(
      "tensor X shape=1,6,5,4 dtype=int8\n"
      "load tensor=X layout=\"((30:36), (36:1))\" lm=0 offset=0,0 shape=30,36 "
      "window=3,3,1,1,1,1,1,1,6,5,0,4 halo=1080\n",
      "p.txt", kLevels);
  const CheckedProgram here = check_program(p, m), there = check_program(relocate_lm(p, 50), m);
  ASSERT_TRUE(here.ok()) << here.errors.front().message();
  ASSERT_TRUE(there.ok()) << there.errors.front().message();
  EXPECT_EQ(lm_extent(here), 1200u);
  EXPECT_EQ(lm_extent(there), 1250u);
}

}  // namespace relocate_test
}  // namespace treesim::program
