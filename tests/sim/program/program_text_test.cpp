#include "sim/program/program_text.h"

#include <gtest/gtest.h>

#include "sim/program/checked_program.h"
#include "tests/configs.h"

namespace treesim::program {
namespace {

const std::vector<std::string> kLevels = {"L2B", "L1B", "MAB", "PE"};

const char* kProgram = R"P(# a small program
tensor A shape=12,8 dtype=int8
tensor B shape=8,4 dtype=uint8
load tensor=A layout="((4_PE, 3:8), (8:1))" lm=0   # rows in blocks of 3
load tensor=B layout="((8:4), (4:1); B@[PE])" lm=64
mac a=0 b=64 c=128 m=3 n=4 k=8 b_dtype=uint8 b_zero=128 acc=true
dpt_decode src=0 dst=512 bytes=8
ternary_mac a=0 w=512 c=1024 m=3 n=4 k=8
requant src=128 dst=256 rows=3 cols=4 bias=300 multiplier=1073741824,1073741824,1073741824,1073741824 shift=-1,-1,-1,-2 out_zero=3 out_dtype=uint8 act_min=3 act_max=200 rounding=single
copy src=0 dst=2048 bytes=24
broadcast level=MAB src=0 dst=4096 bytes=16
scatter level=L1B src=0 dst=4096 bytes=4
gather level=board src=0 dst=4096 bytes=4
reduce level=L2B src=128 dst=8192 count=12
sparse_mac encoding="#sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed), crdWidth = 16 }>" a=0 a_bytes=96 b=128 b_rows=8 n=2 b_zero=-3 c=256 c_rows=4 entries=5,0 segments=4,4
convert tensor=A from="((4_PE, 3:8), (8:1))" src=0 to="((3:8, 4_PE), (8:1))" dst=16384 pad=-1
store tensor=A layout="((4_PE, 3:8), (8:1))" lm=0
pool_max src=0 dst=4096 rows=3 channels=2 taps=4 dtype=uint8
pool_sum src=0 dst=4096 rows=3 channels=2 taps=4 dtype=uint8 zero=128
add a=0 b=64 dst=0 count=64 a_dtype=uint8 b_zero=-3 a_zero=7 a_scale=0.1 b_scale=1.25 out_zero=2 act_min=2
vector op=mul a=0 b=256 b_per=row dst=512 rows=2 cols=8
vector op=add a=512 imm=0.1 dst=512 rows=2 cols=8
vector op=row_max a=0 dst=1024 rows=2 cols=8
reduce level=L1B src=1024 dst=2048 count=2 op=max dtype=float32
)P";

TEST(ProgramText, ASparseMacNamesTheWalkingPesAndTheCheckerHoldsThemToIt) {
  const std::string mac =
      "sparse_mac encoding=\"csr\" a=0 a_bytes=96 b=128 b_rows=8 c=256 c_rows=4 pes=3,17 entries=5,2 "
      "segments=4,4";
  const Program p = parse_program(mac + "\n", "p.txt", kLevels);
  const auto& op = std::get<SparseMac>(p.instrs[0]);
  EXPECT_EQ(op.pes, (std::vector<std::uint64_t>{3, 17}));
  EXPECT_EQ(op.walkers(32), 2u);
  EXPECT_EQ(op.pe_of(1), 17u);
  EXPECT_NE(print_program(p, kLevels).find("pes=3,17 entries=5,2"), std::string::npos);
  const auto error = [&](const std::string& text) {
    const CheckedProgram c = check_program(parse_program(text + "\n", "p.txt", kLevels), testing::mini());
    return c.ok() ? std::string() : c.errors.front().message();
  };
  EXPECT_EQ(error(mac), "");
  EXPECT_NE(error(std::string(mac).replace(mac.find("3,17"), 4, "17,3")).find("pes must be increasing"),
            std::string::npos);
  EXPECT_NE(error(std::string(mac).replace(mac.find("5,2"), 3, "5")).find("give one per listed PE (2)"),
            std::string::npos);
}

TEST(ProgramText, VectorOperandsAreCheckedWhenParsed) {
  const auto error = [&](const std::string& text) {
    try {
      parse_program(text + "\n", "p.txt", kLevels);
      return std::string();
    } catch (const ProgramError& e) {
      return std::string(e.what());
    }
  };
  EXPECT_NE(
      error("vector op=tanh a=0 dst=0 cols=4").find("unknown vector operation 'tanh' (expected one of: add"),
      std::string::npos);
  EXPECT_NE(error("vector op=mul a=0 dst=0 cols=4").find("takes one of 'b' and 'imm'"), std::string::npos);
  EXPECT_NE(error("vector op=mul a=0 b=0 imm=2 dst=0 cols=4").find("takes one of 'b' and 'imm'"),
            std::string::npos);
  EXPECT_NE(error("vector op=exp a=0 b=4 dst=0 cols=4").find("reads one operand"), std::string::npos);
  EXPECT_NE(error("vector op=add a=0 b=4 b_per=diag dst=0 cols=4").find("expected element, row or col"),
            std::string::npos);
}

TEST(ProgramText, VectorNeedsTheUnitAndAPricedOperation) {
  const auto error = [&](const std::string& text, const machine::MachineConfig& m) {
    const CheckedProgram c = check_program(parse_program(text + "\n", "p.txt", kLevels), m);
    return c.ok() ? std::string() : c.errors.front().message();
  };
  machine::MachineConfig plain = testing::mini();
  plain.pe.vector.reset();
  EXPECT_NE(error("vector op=add a=0 imm=1 dst=0 cols=4", plain).find("machine 'mini' has no vector unit"),
            std::string::npos);
  machine::MachineConfig m = plain;
  m.pe.vector = machine::VectorConfig{8, 2, {}};
  EXPECT_EQ(error("vector op=add a=0 imm=1 dst=0 cols=4", m), "");
  EXPECT_NE(error("vector op=exp a=0 dst=0 cols=4", m).find("does not price vector operation 'exp'"),
            std::string::npos);
  m.pe.vector->ops[core::VectorOp::kExp] = {4, 6, true};
  EXPECT_EQ(error("vector op=exp a=0 dst=0 rows=2 cols=4", m), "");
  // A per-row b that the results would overwrite before later rows read it.
  EXPECT_NE(error("vector op=mul a=0 b=32 b_per=row dst=32 rows=2 cols=4", m).find("apart from the results"),
            std::string::npos);
  EXPECT_NE(error("vector op=exp a=0 dst=4 rows=2 cols=4", m).find("in place or apart from a"),
            std::string::npos);
  EXPECT_NE(error("vector op=exp a=65532 dst=0 rows=2 cols=4", m).find("outside the"), std::string::npos);
}

TEST(ProgramText, ParsesEveryInstructionKind) {
  Program p = parse_program(kProgram, "p.txt", kLevels);
  ASSERT_EQ(p.tensors.size(), 2u);
  EXPECT_EQ(p.tensors[1].dtype, DType::kUInt8);
  EXPECT_EQ(p.tensors[0].shape, (std::vector<std::uint64_t>{12, 8}));
  ASSERT_EQ(p.instrs.size(), 21u);
  std::vector<std::string> kinds;
  for (const auto& i : p.instrs) kinds.push_back(kind_name(i));
  EXPECT_EQ(kinds, (std::vector<std::string>{
                       "load",      "load",     "mac",    "dpt_decode", "ternary_mac", "requant", "copy",
                       "broadcast", "scatter",  "gather", "reduce",     "sparse_mac",  "convert", "store",
                       "pool_max",  "pool_sum", "add",    "vector",     "vector",      "vector",  "reduce"}));
  const auto& row_max = std::get<Reduce>(p.instrs[20]);
  EXPECT_EQ(row_max.op, ReduceOp::kMax);
  EXPECT_EQ(row_max.dtype, DType::kFloat32);
  EXPECT_EQ(std::get<Reduce>(p.instrs[10]).op, ReduceOp::kSum);  // the defaults
  EXPECT_EQ(std::get<Reduce>(p.instrs[10]).dtype, DType::kInt32);
  EXPECT_EQ(print_instr(p.instrs[10], kLevels), "reduce level=L2B src=128 dst=8192 count=12");
  const auto& scale = std::get<Vector>(p.instrs[17]);
  EXPECT_EQ(scale.b_form, VectorOperand::kPerRow);
  EXPECT_EQ(scale.b_values(), 2u);
  const auto& shift = std::get<Vector>(p.instrs[18]);
  EXPECT_EQ(shift.b_form, VectorOperand::kImmediate);
  EXPECT_EQ(shift.imm, 0.1f);
  EXPECT_EQ(std::get<Vector>(p.instrs[19]).out_values(), 2u);
  const auto& add = std::get<QuantAdd>(p.instrs[16]);
  EXPECT_EQ(add.stage.a_scale, 0.1f);
  EXPECT_EQ(add.stage.a_dtype, DType::kUInt8);
  EXPECT_EQ(add.stage.act_max, 127);
  const auto& convert = std::get<Convert>(p.instrs[12]);
  EXPECT_EQ(layout::to_string(convert.to), "((3:8, 4_PE), (8:1))");
  EXPECT_EQ(convert.dst, 16384u);
  EXPECT_EQ(convert.pad, -1);
  const auto& sparse = std::get<SparseMac>(p.instrs[11]);
  EXPECT_EQ(sparse.encoding.crd_width, 16);
  EXPECT_EQ(sparse.b_zero, -3);
  EXPECT_EQ(sparse.entries, (std::vector<std::uint64_t>{5, 0}));
  const auto& mac = std::get<Mac>(p.instrs[2]);
  EXPECT_EQ(mac.b_zero, 128);
  EXPECT_TRUE(mac.accumulate);
  EXPECT_EQ(layout::to_string(std::get<Load>(p.instrs[0]).layout), "((4_PE, 3:8), (8:1))");
  const auto& rq = std::get<Requant>(p.instrs[5]);
  EXPECT_EQ(rq.shift, (std::vector<std::int32_t>{-1, -1, -1, -2}));
  EXPECT_TRUE(rq.has_bias);
  EXPECT_EQ(rq.rounding, numeric::Rounding::kSingle);
}

TEST(ProgramText, PrintThenParseGivesTheSameProgram) {
  Program p = parse_program(kProgram, "p.txt", kLevels);
  std::string printed = print_program(p, kLevels);
  Program q = parse_program(printed, "printed.txt", kLevels);
  EXPECT_EQ(print_program(q, kLevels), printed);
  EXPECT_EQ(q.instrs.size(), p.instrs.size());
}

TEST(ProgramText, ParseOfPrintEqualsTheProgram) {
  Program p = parse_program(kProgram, "p.txt", kLevels);
  EXPECT_EQ(parse_program(print_program(p, kLevels), "printed.txt", kLevels), p);
}

TEST(ProgramText, ProgramsThatDifferInOneFieldAreNotEqual) {
  Program p = parse_program(kProgram, "p.txt", kLevels);
  Program q = p;
  std::get<Mac>(q.instrs[2]).k = 9;
  EXPECT_NE(p, q);
  q = p;
  std::get<Broadcast>(q.instrs[7]).level = Level{1};
  EXPECT_NE(p, q);
  q = p;
  std::get<Load>(q.instrs[0]).layout = std::get<Load>(q.instrs[1]).layout;
  EXPECT_NE(p, q);
}

TEST(ProgramText, LevelsAreIndicesOfTheMachine) {
  Program p = parse_program(kProgram, "p.txt", kLevels);
  EXPECT_EQ(std::get<Broadcast>(p.instrs[7]).level, Level{2});
  EXPECT_TRUE(std::get<Gather>(p.instrs[9]).level.is_board());
  EXPECT_EQ(std::get<Reduce>(p.instrs[10]).level, Level{0});
}

TEST(ProgramText, DefaultsAreFilledIn) {
  Program p = parse_program("requant src=0 dst=64 rows=1 cols=4 multiplier=1 shift=0 out_dtype=uint8\n", "p",
                            kLevels);
  const auto& r = std::get<Requant>(p.instrs[0]);
  EXPECT_EQ(r.act_min, 0);
  EXPECT_EQ(r.act_max, 255);
  EXPECT_EQ(r.rounding, numeric::Rounding::kDouble);
}

std::string error_of(const std::string& text) {
  try {
    parse_program(text, "p.txt", kLevels);
  } catch (const ProgramError& e) {
    return e.what();
  }
  return "";
}

TEST(ProgramText, UnknownInstructionNamesLine) {
  std::string e = error_of("# x\nfrobnicate a=1\n");
  EXPECT_EQ(e.rfind("p.txt:2: unknown instruction 'frobnicate' (expected one of: tensor, load,", 0), 0u) << e;
}

TEST(ProgramText, UnknownFieldIsRejected) {
  EXPECT_EQ(error_of("copy src=0 dst=1 bytes=2 speed=3\n"), "p.txt:1: unknown field 'speed' for 'copy'");
}

TEST(ProgramText, MissingFieldIsRejected) {
  EXPECT_EQ(error_of("copy src=0 bytes=2\n"), "p.txt:1: field 'dst' is missing");
}

TEST(ProgramText, BadNumberIsRejected) {
  EXPECT_EQ(error_of("copy src=0 dst=-4 bytes=2\n"),
            "p.txt:1: field 'dst': expected a non-negative integer, got '-4'");
}

TEST(ProgramText, UndeclaredTensorIsRejected) {
  std::string e = error_of("load tensor=X layout=\"((4_PE))\"\n");
  EXPECT_EQ(e.rfind("p.txt:1: tensor 'X' is not declared", 0), 0u) << e;
}

TEST(ProgramText, UnterminatedQuoteIsRejected) {
  EXPECT_EQ(error_of("tensor A shape=4\nload tensor=A layout=\"((4_PE)\n"),
            "p.txt:2: unterminated quote in field 'layout'");
}

TEST(ProgramText, BadDtypeIsRejected) {
  EXPECT_EQ(error_of("tensor A shape=4 dtype=float\n"),
            "p.txt:1: field 'dtype': expected int8, uint8, int32 or float32, got 'float'");
}

TEST(ProgramText, BadRoundingIsRejected) {
  EXPECT_EQ(error_of("requant src=0 dst=64 rows=1 cols=4 multiplier=1 shift=0 rounding=up\n"),
            "p.txt:1: field 'rounding': expected double, single, double_upward or float, got 'up'");
}

TEST(ProgramText, BlockLoadsCarryOffsetShapeAndPad) {
  Program p = parse_program(
      "tensor A shape=12,8\nload tensor=A layout=\"((4_PE, 1:4), (4:1))\" offset=4,4 shape=4,4 pad=7 lm=32\n",
      "p", kLevels);
  const auto& l = std::get<Load>(p.instrs[0]);
  EXPECT_EQ(l.offset, (std::vector<std::uint64_t>{4, 4}));
  EXPECT_EQ(l.shape, (std::vector<std::uint64_t>{4, 4}));
  EXPECT_EQ(l.pad, 7);
  EXPECT_EQ(print_instr(p.instrs[0], kLevels),
            "load tensor=A layout=\"((4_PE, 1:4), (4:1))\" lm=32 offset=4,4 shape=4,4 pad=7");
}

TEST(ProgramText, OffsetWithoutShapeIsRejected) {
  try {
    parse_program("tensor A shape=12,8\nstore tensor=A layout=\"((4_PE, 3:8), (8:1))\" offset=4,4\n", "p",
                  kLevels);
    FAIL();
  } catch (const ProgramError& e) {
    EXPECT_EQ(std::string(e.what()), "p:2: fields 'offset' and 'shape' go together (a block of the tensor)");
  }
}

TEST(ProgramText, RequantParamsMayComeFromTheLm) {
  Program p =
      parse_program("requant src=0 dst=64 rows=2 cols=4 multiplier_lm=128 shift_lm=144\n", "p", kLevels);
  const auto& r = std::get<Requant>(p.instrs[0]);
  EXPECT_TRUE(r.params_in_lm);
  EXPECT_EQ(r.multiplier_lm, 128u);
  EXPECT_EQ(r.shift_lm, 144u);
  EXPECT_EQ(parse_program(print_program(p, kLevels), "q", kLevels).instrs.size(), 1u);
  EXPECT_NE(print_instr(p.instrs[0], kLevels).find("multiplier_lm=128 shift_lm=144"), std::string::npos);
}

TEST(ProgramText, UnknownLevelIsRejected) {
  EXPECT_EQ(error_of("broadcast level=L3B src=0 dst=64 bytes=4\n"),
            "p.txt:1: field 'level': expected a level of the machine (board, L2B, L1B, MAB, PE), got 'L3B'");
}

TEST(ProgramText, InvalidLayoutIsRejectedWithItsColumn) {
  std::string e = error_of("tensor A shape=12,8\nload tensor=A layout=\"((4_PE, 3:8), (8:1)\"\n");
  EXPECT_EQ(e.rfind("p.txt:2: field 'layout': invalid layout \"((4_PE, 3:8), (8:1)\" at column", 0), 0u) << e;
}

}  // namespace
}  // namespace treesim::program

namespace treesim::program {
namespace {

TEST(ProgramText, CrlfLineEndsAreAccepted) {
  Program p = parse_program("tensor A shape=12,8 dtype=uint8\r\n# note\r\n", "crlf.txt", {"PE"});
  ASSERT_EQ(p.tensors.size(), 1u);
  EXPECT_EQ(p.tensors[0].dtype, DType::kUInt8);
}

TEST(ProgramText, TensorSizeThatOverflows64BitsIsRefused) {
  EXPECT_THROW(parse_program("tensor A shape=4294967296,4294967296\n", "p.txt", {"PE"}), ProgramError);
}

}  // namespace
}  // namespace treesim::program

namespace treesim::program {
namespace {

TEST(ProgramText, DptDecodeColsAndCodecRoundTripAndDefaultToDptInStreamOrder) {
  const char* text = "dpt_decode src=0 dst=64 bytes=10 cols=5 codec=bct\ndpt_decode src=0 dst=64 bytes=10\n";
  Program p = parse_program(text, "p.txt", kLevels);
  const auto& packed = std::get<DptDecode>(p.instrs[0]);
  EXPECT_EQ(packed.cols, 5u);
  EXPECT_EQ(packed.codec, numeric::TernaryCodec::kBct);
  const auto& plain = std::get<DptDecode>(p.instrs[1]);
  EXPECT_EQ(plain.cols, 1u);
  EXPECT_EQ(plain.codec, numeric::TernaryCodec::kDpt);
  EXPECT_EQ(print_program(p, kLevels),
            std::string("# treesim program\n") + text);  // defaults are not printed
}

TEST(ProgramText, DptDecodeCodecOutsideTheDecodersIsRejected) {
  std::string e;
  try {
    parse_program("dpt_decode src=0 dst=64 bytes=10 codec=base243_prediv\n", "p.txt", kLevels);
  } catch (const ProgramError& err) {
    e = err.what();
  }
  EXPECT_EQ(e, "p.txt:1: field 'codec': expected dpt, bct or base3, got 'base243_prediv'");
}

}  // namespace
}  // namespace treesim::program
