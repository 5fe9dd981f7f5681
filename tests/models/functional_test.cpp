// Instructions compute the right bytes: results gathered back to DRAM equal host computations.
#include <gtest/gtest.h>

#include <cstring>

#include "models/simulation.h"
#include "sim/layout/parse.h"
#include "sim/machine/machine_file.h"
#include "sim/numeric/requant.h"
#include "sim/program/program_text.h"
#include "tests/configs.h"
#include "tests/test_support.h"

namespace treesim::models {
namespace {

using testing::mini;

std::vector<std::uint8_t> pattern(std::size_t n, unsigned seed) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<std::uint8_t>((i * 37 + seed * 101 + (i >> 3)) & 0xff);
  return v;
}

std::vector<std::int32_t> as_i32(const std::vector<std::uint8_t>& bytes) {
  std::vector<std::int32_t> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

// A (12×8) split in row blocks of 3 over each MAB's 4 PEs, B (8×4) broadcast to every PE:
// each PE computes its 3×4 block of C = (A − za)(B − zb), stored back as a 12×4 int32 tensor.
const char* kGemm = R"P(
tensor A shape=12,8 dtype=DA
tensor B shape=8,4 dtype=DB
tensor C shape=12,4 dtype=int32
load tensor=A layout="((4_PE, 3:8), (8:1))" lm=0
load tensor=B layout="((8:4), (4:1); B@[PE])" lm=64
mac a=0 b=64 c=128 m=3 n=4 k=8 a_dtype=DA b_dtype=DB a_zero=ZA b_zero=ZB
store tensor=C layout="((4_PE, 3:4), (4:1))" lm=128
)P";

std::string fill(std::string text, const std::map<std::string, std::string>& values) {
  for (const auto& [key, value] : values)
    for (auto p = text.find(key); p != std::string::npos; p = text.find(key))
      text.replace(p, key.size(), value);
  return text;
}

void check_gemm(bool a_unsigned, bool b_unsigned, int za, int zb) {
  program::Program p = program::parse_program(fill(kGemm, {{"DA", a_unsigned ? "uint8" : "int8"},
                                                           {"DB", b_unsigned ? "uint8" : "int8"},
                                                           {"ZA", std::to_string(za)},
                                                           {"ZB", std::to_string(zb)}}),
                                              "gemm", layout::level_names(mini()));
  auto a = pattern(96, 1), b = pattern(32, 2);
  auto r = simulate(mini(), p, {{"A", a}, {"B", b}}, {});
  auto c = as_i32(r.dram.at("C"));
  auto val = [](std::uint8_t x, bool u) { return u ? int(x) : int(static_cast<std::int8_t>(x)); };
  for (int i = 0; i < 12; ++i)
    for (int j = 0; j < 4; ++j) {
      int expect = 0;
      for (int k = 0; k < 8; ++k)
        expect += (val(a[i * 8 + k], a_unsigned) - za) * (val(b[k * 4 + j], b_unsigned) - zb);
      ASSERT_EQ(c[i * 4 + j], expect) << "C[" << i << "," << j << "]";
    }
}

TEST(Functional, MacSignedMatchesHostProduct) { check_gemm(false, false, 0, 0); }

TEST(Functional, ReadBackStoredOnlyReturnsJustTheStoredTensors) {
  program::Program p =
      program::parse_program(fill(kGemm, {{"DA", "int8"}, {"DB", "int8"}, {"ZA", "0"}, {"ZB", "0"}}), "gemm",
                             layout::level_names(mini()));
  SimulationOptions options;
  options.read_back_stored_only = true;
  const auto r = simulate(mini(), p, {{"A", pattern(96, 1)}, {"B", pattern(32, 2)}}, options);
  ASSERT_EQ(r.dram.size(), 1u);
  EXPECT_EQ(r.dram.count("C"), 1u);
  EXPECT_EQ(r.dram.at("C").size(), 12u * 4 * 4);
}
TEST(Functional, MacUnsignedWithZeroPointsMatchesHostProduct) { check_gemm(true, true, 128, 3); }

TEST(Functional, RequantMatchesTheNumericOutputStage) {
  program::Program p = program::parse_program(R"P(
tensor X shape=32,4 dtype=int32
tensor Y shape=32,4 dtype=uint8
load tensor=X layout="((2_L1B, 4_MAB, 4_PE), (4:1))" lm=0
requant src=0 dst=64 rows=1 cols=4 multiplier=1518500250,1073741824,2000000000,1300000000 shift=-20,-18,-19,-21 out_zero=7 out_dtype=uint8 act_min=7 act_max=200
store tensor=Y layout="((2_L1B, 4_MAB, 4_PE), (4:1))" lm=64
)P",
                                              "rq", layout::level_names(mini()));
  auto x = pattern(32 * 4 * 4, 3);
  auto r = simulate(mini(), p, {{"X", x}}, {});
  numeric::OutputStage stage;
  stage.multipliers = {{1518500250, -20}, {1073741824, -18}, {2000000000, -19}, {1300000000, -21}};
  stage.out_zero_point = 7;
  stage.out_dtype = core::DType::kUInt8;
  stage.act_min = 7;
  stage.act_max = 200;
  auto acc = as_i32(x);
  const auto& y = r.dram.at("Y");
  for (std::size_t i = 0; i < acc.size(); ++i)
    ASSERT_EQ(int(y[i]), numeric::requantize(acc[i], stage, i % 4)) << "element " << i;
}

// The output overwrites the sums it reads (dst inside src), and a bias is added first.
TEST(Functional, RequantInPlaceWithBiasMatchesTheNumericOutputStage) {
  program::Program p = program::parse_program(R"P(
tensor X shape=32,4 dtype=int32
tensor BIAS shape=4 dtype=int32
tensor Y shape=32,4 dtype=int8
load tensor=X layout="((2_L1B, 4_MAB, 4_PE), (4:1))" lm=0
load tensor=BIAS layout="((4:1); B@[PE])" lm=32
requant src=0 dst=2 rows=1 cols=4 bias=32 multiplier=1518500250 shift=-20 out_zero=-3 out_dtype=int8 act_min=-128 act_max=127
store tensor=Y layout="((2_L1B, 4_MAB, 4_PE), (4:1))" lm=2
)P",
                                              "rq", layout::level_names(mini()));
  auto x = pattern(32 * 4 * 4, 5);
  const std::vector<std::int32_t> bias = {INT32_MAX, -7000000, 0, 123456789};
  std::vector<std::uint8_t> bias_bytes(16);
  std::memcpy(bias_bytes.data(), bias.data(), 16);
  auto r = simulate(mini(), p, {{"X", x}, {"BIAS", bias_bytes}}, {});
  numeric::OutputStage stage;
  stage.multipliers = {{1518500250, -20}};
  stage.out_zero_point = -3;
  auto acc = as_i32(x);
  const auto& y = r.dram.at("Y");
  for (std::size_t i = 0; i < acc.size(); ++i) {
    const auto biased = static_cast<std::int32_t>(static_cast<std::uint32_t>(acc[i]) +
                                                  static_cast<std::uint32_t>(bias[i % 4]));
    ASSERT_EQ(int(static_cast<std::int8_t>(y[i])), numeric::requantize(biased, stage, 0)) << "element " << i;
  }
}

// A row gather writes its rows and its padding (the pad value) and leaves its gaps as they were:
// every PE first holds the pad 5, then PE 0 and PE 31 receive X's rows (and, with few gaps, PEs 3 and
// up padding 7) while the gaps keep the 5. Mostly gaps and a few gaps take different paths.
void check_gaps(const std::string& rows, const std::vector<int>& expected_rows) {
  SCOPED_TRACE(rows);
  const std::string text = R"P(
tensor X shape=4,2 dtype=int8
tensor Y shape=32,2 dtype=int8
load tensor=X layout="((2_L1B, 4_MAB, 4_PE), (2:1))" lm=0 rows=_32 pad=5
load tensor=X layout="((2_L1B, 4_MAB, 4_PE), (2:1))" lm=0 pad=7 rows=)P" +
                           rows + R"P(
store tensor=Y layout="((2_L1B, 4_MAB, 4_PE), (2:1))" lm=0
)P";
  const program::Program p = program::parse_program(text, "gaps", layout::level_names(mini()));
  const std::vector<std::uint8_t> x{10, 11, 20, 21, 30, 31, 40, 41};
  const auto r = simulate(mini(), p, {{"X", x}}, {});
  const auto& y = r.dram.at("Y");
  for (std::size_t i = 0; i < 32; ++i) {
    const int want = expected_rows[i];  // X's row, or −pad
    for (std::size_t c = 0; c < 2; ++c)
      EXPECT_EQ(int(y[2 * i + c]), want < 0 ? -want : x[2 * static_cast<std::size_t>(want) + c])
          << "row " << i << " column " << c;
  }
}

// (One simulation per test: SystemC elaborates once per process.)
TEST(Functional, RowGatherOfMostlyGapsKeepsWhatTheLmHeld) {
  std::vector<int> mostly(32, -5);
  mostly[0] = 1, mostly[31] = 2;
  check_gaps("1,~30,2", mostly);
}

// Mostly gaps again, with a row's two elements in two PEs (not consecutive bytes of one): the rows
// are placed element by element.
TEST(Functional, RowGatherOfMostlyGapsPlacesRowsSpreadOverPes) {
  const std::string layout = "((2_L1B, 4_MAB, 2_PE), (2_PE))";
  const std::string text =
      "tensor X shape=4,2 dtype=int8\ntensor Y shape=16,2 dtype=int8\n"
      "load tensor=X layout=\"" +
      layout +
      "\" lm=0 rows=_16 pad=5\n"
      "load tensor=X layout=\"" +
      layout +
      "\" lm=0 pad=7 rows=1,~14,2\n"
      "store tensor=Y layout=\"" +
      layout + "\" lm=0\n";
  const program::Program p = program::parse_program(text, "spread", layout::level_names(mini()));
  const std::vector<std::uint8_t> x{10, 11, 20, 21, 30, 31, 40, 41};
  const auto r = simulate(mini(), p, {{"X", x}}, {});
  const auto& y = r.dram.at("Y");
  for (std::size_t i = 0; i < 16; ++i)
    for (std::size_t c = 0; c < 2; ++c)
      EXPECT_EQ(int(y[2 * i + c]), i == 0    ? x[2 + c]
                                   : i == 15 ? x[4 + c]
                                             : 5)
          << "row " << i << " column " << c;
}

TEST(Functional, RowGatherOfAFewGapsKeepsWhatTheLmHeld) {
  std::vector<int> few(32, -7);
  few[0] = 1, few[1] = -5, few[2] = 3, few[31] = 2;
  check_gaps("1,~,3,_28,2", few);
}

// Every PE holds 4 int32 (its PE id in the tree order, 4 times) after the load below.
const char* kCollective = R"P(
tensor X shape=32,4 dtype=int32
tensor Y shape=32,4 dtype=int32
load tensor=X layout="((2_L1B, 4_MAB, 4_PE), (4:1))" lm=0
OP
store tensor=Y layout="((2_L1B, 4_MAB, 4_PE), (4:1))" lm=64
)P";

std::vector<std::int32_t> run_collective(const std::string& op, const std::string& y_init_op = "") {
  std::string text = fill(kCollective, {{"OP", y_init_op + op}});
  program::Program p = program::parse_program(text, "coll", layout::level_names(mini()));
  std::vector<std::int32_t> x(128);
  for (int pe = 0; pe < 32; ++pe)
    for (int j = 0; j < 4; ++j) x[pe * 4 + j] = pe * 10 + j;
  std::vector<std::uint8_t> bytes(x.size() * 4);
  std::memcpy(bytes.data(), x.data(), bytes.size());
  auto r = simulate(mini(), p, {{"X", bytes}}, {});
  return as_i32(r.dram.at("Y"));
}

TEST(Functional, ReduceSumsTheSubtreeIntoItsFirstPe) {
  // First write Y's region everywhere (copy), then reduce each MAB's... each L1B's 16 PEs into PE 0.
  auto y = run_collective("reduce level=L1B src=0 dst=64 count=4\n", "copy src=0 dst=64 bytes=16\n");
  for (int l1 = 0; l1 < 2; ++l1) {
    int first = l1 * 16;
    for (int j = 0; j < 4; ++j) {
      int sum = 0;
      for (int pe = first; pe < first + 16; ++pe) sum += pe * 10 + j;
      EXPECT_EQ(y[first * 4 + j], sum);
    }
    EXPECT_EQ(y[(first + 1) * 4], (first + 1) * 10);  // others keep their copy
  }
}

TEST(Functional, ReduceTakesTheMaxOfTheSubtree) {
  // PE p holds p·10 + j (int32): each L1B's maximum is its last PE's.
  auto y = run_collective("reduce level=L1B src=0 dst=64 count=4 op=max\n", "copy src=0 dst=64 bytes=16\n");
  for (int l1 = 0; l1 < 2; ++l1)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(y[l1 * 16 * 4 + j], (l1 * 16 + 15) * 10 + j);
}

TEST(Functional, AFloatReduceSumsInPeOrderFromTheFirstPe) {
  // PE p's value j is 1 + 1/(3 + 7p + j) in float32; the sum is ((x0 + x1) + x2) + ... in binary32,
  // which a sum in any other order would round differently.
  const std::string op = "reduce level=board src=0 dst=64 count=4 dtype=float32\n";
  std::string text = fill(kCollective, {{"OP", "copy src=0 dst=64 bytes=16\n" + op}});
  program::Program p = program::parse_program(text, "coll", layout::level_names(mini()));
  std::vector<float> x(128);
  for (int pe = 0; pe < 32; ++pe)
    for (int j = 0; j < 4; ++j) x[pe * 4 + j] = 1.0f + 1.0f / static_cast<float>(3 + pe * 7 + j);
  std::vector<std::uint8_t> bytes(x.size() * 4);
  std::memcpy(bytes.data(), x.data(), bytes.size());
  auto r = simulate(mini(), p, {{"X", bytes}}, {});
  std::vector<float> y(128);
  std::memcpy(y.data(), r.dram.at("Y").data(), y.size() * 4);
  for (int j = 0; j < 4; ++j) {
    float sum = x[j];
    for (int pe = 1; pe < 32; ++pe) sum += x[pe * 4 + j];
    EXPECT_EQ(y[j], sum) << j;
  }
}

TEST(Functional, BroadcastCopiesTheFirstPeEverywhereBelow) {
  auto y = run_collective("broadcast level=MAB src=0 dst=64 bytes=16\n");
  for (int pe = 0; pe < 32; ++pe)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(y[pe * 4 + j], (pe / 4 * 4) * 10 + j) << pe;
}

TEST(Functional, ScatterHandsEachPeItsBlock) {
  // The MAB's first PE holds 4 blocks of 4 bytes at src: its own 16 bytes; PE j gets int32 j.
  auto y = run_collective("scatter level=MAB src=0 dst=64 bytes=4\n", "copy src=0 dst=64 bytes=16\n");
  for (int pe = 0; pe < 32; ++pe) EXPECT_EQ(y[pe * 4], (pe / 4 * 4) * 10 + pe % 4) << pe;
}

TEST(Functional, GatherCollectsEveryPesBlock) {
  auto y = run_collective("gather level=MAB src=0 dst=64 bytes=4\n", "copy src=0 dst=64 bytes=16\n");
  for (int mab = 0; mab < 8; ++mab)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(y[mab * 16 + j], (mab * 4 + j) * 10) << mab;
}

TEST(Functional, DptDecodeWritesTernaryWeights) {
  // Byte 0x00 is five trits 0 (weights −1); every PE decodes 4 bytes into 20 weights.
  program::Program p = program::parse_program(R"P(
tensor X shape=32,4 dtype=uint8
tensor Y shape=32,20 dtype=int8
load tensor=X layout="((2_L1B, 4_MAB, 4_PE), (4:1))" lm=0
dpt_decode src=0 dst=64 bytes=4
store tensor=Y layout="((2_L1B, 4_MAB, 4_PE), (20:1))" lm=64
)P",
                                              "dpt", layout::level_names(mini()));
  auto r = simulate(mini(), p, {{"X", std::vector<std::uint8_t>(128, 0)}}, {});
  for (std::uint8_t v : r.dram.at("Y")) ASSERT_EQ(static_cast<std::int8_t>(v), -1);
}

}  // namespace
}  // namespace treesim::models

namespace treesim::models {
namespace {

TEST(Functional, BlockLoadPlacesTheBlockAndFillsPaddingWithThePadValue) {
  // Rows 4..6 (3 rows, padded to 4) and columns 2..5 of a 10×8 tensor onto the 4 PEs of every
  // MAB, one row each; the padded row gets the pad value 9. Stored back as a 4×4 tensor.
  program::Program p = program::parse_program(R"P(
tensor A shape=10,8 dtype=uint8
tensor B shape=4,4 dtype=uint8
tensor C shape=4,4 dtype=uint8
load tensor=A layout="(3,4)/((4_PE), (4:1))" offset=4,2 shape=3,4 pad=9
store tensor=B layout="((4_PE), (4:1))"
store tensor=C layout="(3,4)/((4_PE), (4:1))" offset=1,0 shape=3,4
)P",
                                              "block", layout::level_names(mini()));
  std::vector<std::uint8_t> a(80);
  for (int i = 0; i < 80; ++i) a[i] = static_cast<std::uint8_t>(i);
  auto r = simulate(mini(), p, {{"A", a}}, {});
  const auto& b = r.dram.at("B");
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(b[i * 4 + j], (4 + i) * 8 + 2 + j);
  for (int j = 0; j < 4; ++j) EXPECT_EQ(b[12 + j], 9);  // the padded row
  const auto& c = r.dram.at("C");
  for (int j = 0; j < 4; ++j) EXPECT_EQ(c[j], 0);  // row 0 of C is outside the stored block
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(c[(i + 1) * 4 + j], (4 + i) * 8 + 2 + j);
}

// A windowed convert (a convolution reading the one before's output in the LMs): X, held in row
// blocks over the PEs, is read by 3×3 same-padded windows into the whole window matrix, stored back
// as Y; each slot holds the element its window reads, or the pad value outside the image.
TEST(Functional, WindowedConvertMakesEverySlotOfTheWindowMatrix) {
  program::Program p = program::parse_program(R"P(
tensor X shape=30,4 dtype=int8
tensor Y shape=30,36 dtype=int8
load tensor=X layout="(30,4)/((2_L1B, 4_MAB, 4_PE, 1:4), (4:1))" lm=0
convert tensor=X from="(30,4)/((2_L1B, 4_MAB, 4_PE, 1:4), (4:1))" src=0 to="(30,36)/((2_L1B, 4_MAB, 4_PE, 1:36), (36:1))" dst=1024 offset=0,0 shape=30,36 window=3,3,1,1,1,1,1,1,6,5,0,4 view=1,6,5,4 pad=-2
store tensor=Y layout="(30,36)/((2_L1B, 4_MAB, 4_PE, 1:36), (36:1))" lm=1024
)P",
                                              "windows", layout::level_names(mini()));
  const std::vector<std::uint8_t> x = pattern(120, 3);
  auto r = simulate(mini(), p, {{"X", x}}, {});
  const auto& y = r.dram.at("Y");
  for (int oh = 0; oh < 6; ++oh)
    for (int ow = 0; ow < 5; ++ow)
      for (int c = 0; c < 4; ++c)
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) {
            const int h = oh + i - 1, w = ow + j - 1;
            const std::uint8_t want =
                h < 0 || h >= 6 || w < 0 || w >= 5 ? std::uint8_t(0xfe) : x[(h * 5 + w) * 4 + c];
            ASSERT_EQ(y[(oh * 5 + ow) * 36 + c * 9 + i * 3 + j], want) << oh << "," << ow << "," << c;
          }
}

TEST(Functional, BlockOutsideTheTensorIsABadProgram) {
  program::Program p = program::parse_program(
      "tensor A shape=10,8\nload tensor=A layout=\"((4_PE), (4:1))\" offset=8,0 shape=4,4\n", "outside",
      layout::level_names(mini()));
  try {
    simulate(mini(), p, {{"A", std::vector<std::uint8_t>(80)}}, {});
    FAIL();
  } catch (const SimError& e) {
    EXPECT_EQ(std::string(e.what()),
              "instruction 0 (load): the block at offset (8,0) of shape (4,4) is not inside tensor 'A' of "
              "shape (10,8)");
  }
}

}  // namespace
}  // namespace treesim::models
