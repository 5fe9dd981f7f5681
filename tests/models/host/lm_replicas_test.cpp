// Bytes a load broadcasts are shared among the PEs rather than copied (on CPUs with the VNNI MAC
// kernel), yet every instruction reads exactly what real copies would hold: a copy out of a shared
// range, a load over part of it, and a MAC on it all see the loaded bytes in every PE.
#include <gtest/gtest.h>

#include <cstring>

#include "models/simulation.h"
#include "sim/layout/parse.h"
#include "sim/machine/machine_file.h"
#include "sim/program/program_text.h"
#include "tests/configs.h"
#include "tests/test_support.h"

namespace treesim::host {
namespace {

using models::DramImage;
using models::simulate;

using testing::mini;

std::vector<std::uint8_t> bytes_from(int first, std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(first + static_cast<int>(i) * 7);
  return v;
}

DramImage run(const std::string& text, const DramImage& inputs) {
  program::Program p = program::parse_program(text, "shared", layout::level_names(mini()));
  return simulate(mini(), p, inputs, {}).dram;
}

TEST(LmReplicas, CopyOutOfABroadcastRangeSeesTheLoadedBytesInEveryPe) {
  const DramImage out = run(R"P(
tensor B shape=32 dtype=uint8
tensor Y shape=32,32 dtype=uint8
load tensor=B layout="((32:1); B@[PE])" lm=64
copy src=64 dst=200 bytes=32
store tensor=Y layout="((2_L1B, 4_MAB, 4_PE), (32:1))" lm=200
)P",
                            {{"B", bytes_from(1, 32)}});
  const auto& y = out.at("Y");
  for (int pe = 0; pe < 32; ++pe)
    for (int j = 0; j < 32; ++j)
      ASSERT_EQ(y[pe * 32 + j], bytes_from(1, 32)[j]) << "PE " << pe << " byte " << j;
}

TEST(LmReplicas, LoadOverPartOfABroadcastRangeKeepsTheRestOfIt) {
  const DramImage out = run(R"P(
tensor B shape=32 dtype=uint8
tensor X shape=32,8 dtype=uint8
tensor Y shape=32,32 dtype=uint8
load tensor=B layout="((32:1); B@[PE])" lm=64
load tensor=X layout="((2_L1B, 4_MAB, 4_PE), (8:1))" lm=72
store tensor=Y layout="((2_L1B, 4_MAB, 4_PE), (32:1))" lm=64
)P",
                            {{"B", bytes_from(1, 32)}, {"X", bytes_from(100, 256)}});
  const auto& y = out.at("Y");
  const auto b = bytes_from(1, 32), x = bytes_from(100, 256);
  for (int pe = 0; pe < 32; ++pe)
    for (int j = 0; j < 32; ++j) {
      const std::uint8_t expect = j >= 8 && j < 16 ? x[pe * 8 + j - 8] : b[j];
      ASSERT_EQ(y[pe * 32 + j], expect) << "PE " << pe << " byte " << j;
    }
}

TEST(LmReplicas, ReloadingABroadcastRangeReplacesItInEveryPe) {
  // The second load of B2 over B1's shared range, then a MAC with each: C = 1·B2 per PE.
  const DramImage out =
      run(R"P(
tensor A shape=32,1 dtype=int8
tensor B1 shape=1,16 dtype=int8
tensor B2 shape=1,16 dtype=int8
tensor C shape=32,16 dtype=int32
load tensor=A layout="((2_L1B, 4_MAB, 4_PE), (1:1))" lm=0
load tensor=B1 layout="((1:16), (16:1); B@[PE])" lm=64
load tensor=B2 layout="((1:16), (16:1); B@[PE])" lm=64
mac a=0 b=64 c=128 m=1 n=16 k=1 a_dtype=int8 b_dtype=int8 a_zero=0 b_zero=0
store tensor=C layout="((2_L1B, 4_MAB, 4_PE), (16:1))" lm=128
)P",
          {{"A", std::vector<std::uint8_t>(32, 1)}, {"B1", bytes_from(3, 16)}, {"B2", bytes_from(50, 16)}});
  std::vector<std::int32_t> c(32 * 16);
  std::memcpy(c.data(), out.at("C").data(), c.size() * 4);
  const auto b2 = bytes_from(50, 16);
  for (int pe = 0; pe < 32; ++pe)
    for (int j = 0; j < 16; ++j) ASSERT_EQ(c[pe * 16 + j], static_cast<std::int8_t>(b2[j])) << pe << "," << j;
}

}  // namespace
}  // namespace treesim::host
