// `treesim dpt ...` and `treesim quant ...` run as a user would: output, JSON shapes, exit codes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/io/atomic_file.h"
#include "sim/io/npy.h"
#include "sim/numeric/dpt.h"
#include "sim/numeric/fixed_point.h"
#include "sim/numeric/qgemm_reference.h"
#include "tests/test_support.h"

namespace treesim {
namespace {

using ::testing::HasSubstr;
using testing::run_treesim;
using ::testing::StartsWith;
using testing::temp_path;

bool exists(const std::string& path) { return std::ifstream(path).good(); }

// Bad input: exit status 2, nothing on stdout, exactly one line on stderr.
void expect_bad_input(const testing::CliResult& r) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  ASSERT_FALSE(r.err.empty());
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
}

TEST(DptCli, TableIsTheCsvOfAllCodes) {
  const auto r = run_treesim({"dpt", "table"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "value,trits,byte");
  int v = 0;
  while (std::getline(lines, line)) {
    const numeric::Trits5 t = numeric::value_trits(v);
    EXPECT_EQ(line, fmt::format("{},{},0x{:02X}", v, numeric::trits_string(t), numeric::dpt_encode(t)));
    ++v;
  }
  EXPECT_EQ(v, 243);
}

TEST(DptCli, EncodeTakesTritsMostSignificantFirst) {
  const auto r = run_treesim({"dpt", "encode", "00022"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "0x88\n");
  const auto j = run_treesim({"dpt", "encode", "12222", "--json"});
  EXPECT_EQ(nlohmann::json::parse(j.out),
            nlohmann::json::parse(R"({"value":161,"trits":"12222","byte":"0x9B"})"));
}

TEST(DptCli, DecodePrintsTheTrits) {
  const auto r = run_treesim({"dpt", "decode", "0x88"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "00022\n");
  EXPECT_EQ(run_treesim({"dpt", "decode", "136"}).out, "00022\n");
}

TEST(DptCli, DecodeOfAnUnusedCodeAliasesUnlessStrict) {
  const auto loose = run_treesim({"dpt", "decode", "0xCB"});
  EXPECT_EQ(loose.exit_code, 0);
  EXPECT_EQ(loose.out, "02222\n");
  EXPECT_THAT(loose.err, HasSubstr("unused code"));
  const auto strict = run_treesim({"dpt", "decode", "0xCB", "--strict"});
  expect_bad_input(strict);
  EXPECT_THAT(strict.err, HasSubstr("0xCB at offset 0 is not a DPT code"));
}

TEST(DptCli, BadTritsAndBytesAreOneLineErrors) {
  expect_bad_input(run_treesim({"dpt", "encode", "00032"}));
  expect_bad_input(run_treesim({"dpt", "encode", "0002"}));
  expect_bad_input(run_treesim({"dpt", "decode", "0x100"}));
  expect_bad_input(run_treesim({"dpt", "decode", "zz"}));
}

TEST(DptCli, PackAndUnpackRoundTripAnNpyTensor) {
  std::mt19937 rng(3);
  std::vector<std::int8_t> w(4 * 13);
  for (auto& x : w) x = static_cast<std::int8_t>(static_cast<int>(rng() % 3) - 1);
  const std::string in = temp_path("w.npy"), packed = temp_path("w.dpt"), back = temp_path("w2.npy");
  io::write_npy(in, io::make_npy<std::int8_t>({4, 13}, w));
  const auto p = run_treesim({"dpt", "pack", "--in", in, "--out", packed});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(io::read_file(packed).size(), 40u + 2 * 8 + 4 * 3);  // header, shape, 4 lines of ceil(13/5) bytes
  const auto u = run_treesim({"dpt", "unpack", "--in", packed, "--out", back});
  ASSERT_EQ(u.exit_code, 0) << u.err;
  const io::NpyArray a = io::read_npy(back);
  EXPECT_EQ(a.shape, (std::vector<std::uint64_t>{4, 13}));
  EXPECT_EQ(io::npy_values<std::int8_t>(a, back), w);
}

TEST(DptCli, PackAlongAnotherAxis) {
  const std::vector<std::int8_t> w = {1, 0, -1, 1, 0, -1, 1, 1, 1, 0, 0, 0, -1, -1};
  const std::string in = temp_path("axis.npy"), packed = temp_path("axis.dpt"), back = temp_path("axis2.npy");
  io::write_npy(in, io::make_npy<std::int8_t>({7, 2}, w));
  ASSERT_EQ(run_treesim({"dpt", "pack", "--in", in, "--out", packed, "--axis", "0"}).exit_code, 0);
  EXPECT_EQ(io::read_file(packed).size(), 40u + 2 * 8 + 2 * 2);
  ASSERT_EQ(run_treesim({"dpt", "unpack", "--in", packed, "--out", back}).exit_code, 0);
  EXPECT_EQ(io::npy_values<std::int8_t>(io::read_npy(back), back), w);
}

TEST(DptCli, PackRejectsNonTernaryInputWithoutWritingOutput) {
  const std::string in = temp_path("two.npy"), out = temp_path("two.dpt");
  io::write_npy(in, io::make_npy<std::int8_t>({3}, {0, 2, 1}));
  const auto r = run_treesim({"dpt", "pack", "--in", in, "--out", out});
  expect_bad_input(r);
  EXPECT_THAT(r.err, HasSubstr("weight 2 at index 1 is not ternary"));
  EXPECT_FALSE(exists(out));
  const std::string f = temp_path("float.npy");
  io::write_npy(f, io::make_npy<float>({1}, {0.0f}));
  const auto wrong = run_treesim({"dpt", "pack", "--in", f, "--out", out});
  expect_bad_input(wrong);
  EXPECT_THAT(wrong.err, HasSubstr("expected dtype int8, got float32"));
  EXPECT_FALSE(exists(out));
  expect_bad_input(run_treesim({"dpt", "pack", "--in", in, "--out", out, "--axis", "1"}));
}

TEST(DptCli, UnpackRejectsAnUnusedCodeWithItsOffset) {
  const std::string in = temp_path("u.npy"), packed = temp_path("u.dpt"), out = temp_path("u2.npy");
  io::write_npy(in, io::make_npy<std::int8_t>({10}, {1, 1, 1, 1, 1, 0, 0, 0, 0, 0}));
  ASSERT_EQ(run_treesim({"dpt", "pack", "--in", in, "--out", packed}).exit_code, 0);
  std::string bytes = io::read_file(packed);
  bytes[bytes.size() - 1] = static_cast<char>(0xFF);
  io::write_file_atomically(packed, bytes);
  const auto r = run_treesim({"dpt", "unpack", "--in", packed, "--out", out});
  expect_bad_input(r);
  EXPECT_THAT(r.err, HasSubstr("0xFF at payload offset 1"));
  EXPECT_FALSE(exists(out));
}

TEST(QuantCli, MultiplierJsonIsQuantizeMultiplier) {
  for (const char* real : {"0.25", "1.5", "0.0049871425852299", "-4"}) {
    const auto r = run_treesim({"quant", "multiplier", real, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    const auto q = numeric::quantize_multiplier(std::stod(real));
    EXPECT_EQ(j, (nlohmann::json{{"multiplier", q.multiplier}, {"shift", q.shift}})) << real;
  }
}

TEST(QuantCli, MultiplierSingleRoundingSaturatesHugeValues) {
  const auto r = run_treesim({"quant", "multiplier", "2147483648", "--rounding", "single", "--json"});
  EXPECT_EQ(r.out, "{\"multiplier\": 2147483647, \"shift\": 30}\n");
}

TEST(QuantCli, MultiplierWithoutJsonIsOneReadableLine) {
  const auto r = run_treesim({"quant", "multiplier", "0.25"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, StartsWith("multiplier 1073741824 shift -1"));
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1);
}

// The note's double-rounding example: MBQM(1000, INT32_MAX, −4) = 63 double, 62 single.
TEST(QuantCli, MbqmJsonInEachFlavour) {
  for (const char* mode : {"double", "single", "double_upward"}) {
    const auto r = run_treesim({"quant", "mbqm", "--x", "1000", "--multiplier", "2147483647", "--shift", "-4",
                                "--rounding", mode, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto v =
        numeric::multiply_by_quantized_multiplier(1000, 2147483647, -4, *numeric::parse_rounding(mode));
    EXPECT_EQ(nlohmann::json::parse(r.out), (nlohmann::json{{"value", v}})) << mode;
  }
  EXPECT_EQ(
      run_treesim({"quant", "mbqm", "--x", "-6", "--multiplier", "1073741824", "--shift", "-1", "--json"})
          .out,
      "{\"value\": -2}\n");
}

TEST(QuantCli, MbqmOutsideTheContractIsAnError) {
  const auto r =
      run_treesim({"quant", "mbqm", "--x", "4194304", "--multiplier", "1073741824", "--shift", "9"});
  expect_bad_input(r);
  EXPECT_THAT(r.err, HasSubstr("overflows int32"));
  expect_bad_input(run_treesim(
      {"quant", "mbqm", "--x", "1", "--multiplier", "-5", "--shift", "0", "--rounding", "single"}));
  expect_bad_input(run_treesim({"quant", "mbqm", "--x", "abc", "--multiplier", "1", "--shift", "0"}));
  expect_bad_input(
      run_treesim({"quant", "mbqm", "--x", "1", "--multiplier", "1", "--shift", "0", "--rounding", "up"}));
}

// A small per-column int8 GEMM through the CLI equals the library's reference on the same inputs.
TEST(QuantCli, GemmWritesTheReferenceResult) {
  std::mt19937 rng(8);
  const std::size_t M = 3, K = 5, N = 4;
  std::vector<std::int8_t> a(M * K), b(K * N);
  for (auto& x : a) x = static_cast<std::int8_t>(static_cast<int>(rng() % 256) - 128);
  for (auto& x : b) x = static_cast<std::int8_t>(static_cast<int>(rng() % 255) - 127);
  const std::vector<std::int32_t> bias = {100, -200, 300, -400};
  const std::string pa = temp_path("ga.npy"), pb = temp_path("gb.npy"), pbias = temp_path("gbias.npy"),
                    pq = temp_path("gq.yaml"), pc = temp_path("gc.npy");
  io::write_npy(pa, io::make_npy<std::int8_t>({M, K}, a));
  io::write_npy(pb, io::make_npy<std::int8_t>({K, N}, b));
  io::write_npy(pbias, io::make_npy<std::int32_t>({N}, bias));
  io::write_file_atomically(
      pq,
      "a_zero_point: -3\nout_zero_point: 7\nact_min: -100\nact_max: 120\n"
      "multiplier: [1300000000, 1500000000, 1100000000, 2000000000]\nshift: [-8, -9, -7, -10]\n");
  const auto r =
      run_treesim({"quant", "gemm", "--a", pa, "--b", pb, "--bias", pbias, "--quant", pq, "--out", pc});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  numeric::QGemmParams p;
  p.M = M;
  p.N = N;
  p.K = K;
  p.a_zero_point = -3;
  p.out.out_zero_point = 7;
  p.out.act_min = -100;
  p.out.act_max = 120;
  p.out.multipliers = {{1300000000, -8}, {1500000000, -9}, {1100000000, -7}, {2000000000, -10}};
  const auto expected = numeric::reference_qgemm(p, {a.begin(), a.end()}, {b.begin(), b.end()}, bias);
  const io::NpyArray c = io::read_npy(pc);
  EXPECT_EQ(c.shape, (std::vector<std::uint64_t>{M, N}));
  const auto got = io::npy_values<std::int8_t>(c, pc);
  EXPECT_EQ(std::vector<std::int32_t>(got.begin(), got.end()), expected);
}

TEST(QuantCli, GemmBadInputsAreOneLineErrorsWithoutOutput) {
  const std::string pa = temp_path("ba.npy"), pb = temp_path("bb.npy"), pq = temp_path("bq.yaml"),
                    pc = temp_path("bc.npy"), bad_q = temp_path("bad.yaml");
  io::write_npy(pa, io::make_npy<std::uint8_t>({2, 3}, {1, 2, 3, 4, 5, 6}));
  io::write_npy(pb, io::make_npy<std::uint8_t>({2, 2}, {1, 2, 3, 4}));
  io::write_file_atomically(pq, "out_dtype: uint8\nmultiplier: 1073741824\nshift: 0\n");
  io::write_file_atomically(bad_q, "out_dtype: uint8\nmultiplier: 1073741824\nshift: 0\nbias: 3\n");
  const auto shapes = run_treesim({"quant", "gemm", "--a", pa, "--b", pb, "--quant", pq, "--out", pc});
  expect_bad_input(shapes);
  EXPECT_THAT(shapes.err, HasSubstr("A's columns must equal B's rows"));
  const auto yaml = run_treesim({"quant", "gemm", "--a", pa, "--b", pb, "--quant", bad_q, "--out", pc});
  expect_bad_input(yaml);
  EXPECT_THAT(yaml.err, HasSubstr(bad_q + ":4:1: unknown field 'bias'"));
  io::write_npy(pb, io::make_npy<float>({3, 2}, {1, 2, 3, 4, 5, 6}));
  const auto dtype = run_treesim({"quant", "gemm", "--a", pa, "--b", pb, "--quant", pq, "--out", pc});
  expect_bad_input(dtype);
  EXPECT_THAT(dtype.err, HasSubstr("expected dtype int8 or uint8 for B, got float32"));
  expect_bad_input(
      run_treesim({"quant", "gemm", "--a", temp_path("none.npy"), "--b", pb, "--quant", pq, "--out", pc}));
  EXPECT_FALSE(exists(pc));
}

}  // namespace
}  // namespace treesim
