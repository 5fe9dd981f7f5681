// `treesim run qgemm|tgemm` with float32/float16/bfloat16 operands: quantized on load with the
// quantization file's scales (A per tensor, B per tensor or per output column), or calibrated from
// the data; each run equals the run on the codes quantized by hand (ties to even, saturation),
// --out-dtype f32 dequantizes C, and NaN/inf or missing scales are one-line errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "sim/io/npy.h"
#include "tests/test_support.h"

namespace treesim {
namespace {

using testing::run_treesim;
using testing::source_path;
using testing::temp_path;

std::vector<std::string> run(const char* kernel, const std::string& a, const std::string& b,
                             const std::string& quant, const std::string& out,
                             std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"run",
                                kernel,
                                "--machine",
                                source_path("configs/mini.yaml"),
                                "--a",
                                a,
                                kernel == std::string("tgemm") ? "--w" : "--b",
                                b,
                                "--quant",
                                quant,
                                "--out",
                                out,
                                "--verify",
                                "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// A (2×3) and its codes by hand with scale 0.5, zero point 3 (s8): v / 0.5 + 3, ties to even.
const std::vector<float> kAReal{0.25f, -1.0f, 2.0f, -0.75f, 100.0f, 0.0f};
const std::vector<std::int8_t> kACodes{4, 1, 7, 2, 127, 3};  // 3.5 → 4, 1.5 → 2, 203 → 127
// B (3×2) per column with scales 1 and 0.25, zero point 0.
const std::vector<float> kBReal{1.5f, 1.5f, -2.0f, -0.125f, 0.0f, 0.5f};
const std::vector<std::int8_t> kBCodes{2, 6, -2, 0, 0, 2};  // 1.5 → 2, −0.5 → 0
const std::string kQuant =
    "a_zero_point: 3\na_scale: 0.5\nb_scale: [1.0, 0.25]\nout_scale: 0.05\nout_zero_point: 1\n";

// The output codes of a run on integer operands (verified against the host reference).
std::vector<std::uint8_t> codes_run(const char* kernel, const std::vector<std::int8_t>& a_codes,
                                    const std::vector<std::int8_t>& b_codes, const std::string& quant_text) {
  io::write_npy(temp_path("qa.npy"), io::make_npy({2, 3}, a_codes));
  io::write_npy(temp_path("qb.npy"), io::make_npy({3, 2}, b_codes));
  const std::string quant = testing::write_temp_file("q.yaml", quant_text);
  const auto r =
      run_treesim(run(kernel, temp_path("qa.npy"), temp_path("qb.npy"), quant, temp_path("qc.npy")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return io::read_npy(temp_path("qc.npy")).bytes;
}

// The output codes of a run on float operands written as given.
std::vector<std::uint8_t> float_run(const char* kernel, const io::NpyArray& a, const io::NpyArray& b,
                                    const std::string& quant_text) {
  io::write_npy(temp_path("fa.npy"), a);
  io::write_npy(temp_path("fb.npy"), b);
  const std::string quant = testing::write_temp_file("f.yaml", quant_text);
  const auto r =
      run_treesim(run(kernel, temp_path("fa.npy"), temp_path("fb.npy"), quant, temp_path("fc.npy")));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return io::read_npy(temp_path("fc.npy")).bytes;
}

// A float matrix in 16-bit form: float16 or bfloat16 bits.
io::NpyArray half_npy(core::DType dtype, std::vector<std::uint64_t> shape,
                      const std::vector<std::uint16_t>& bits) {
  io::NpyArray a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.bytes.resize(bits.size() * 2);
  std::memcpy(a.bytes.data(), bits.data(), a.bytes.size());
  return a;
}

TEST(FloatInput, QgemmFloat32OperandsEqualTheirCodesQuantizedByHand) {
  EXPECT_EQ(float_run("qgemm", io::make_npy({2, 3}, kAReal), io::make_npy({3, 2}, kBReal), kQuant),
            codes_run("qgemm", kACodes, kBCodes, kQuant));
}

TEST(FloatInput, QgemmFloat16AndBFloat16OperandsEqualTheirCodes) {
  // kAReal in float16 bits and in bfloat16 bits (both exact).
  const io::NpyArray f16 =
      half_npy(core::DType::kFloat16, {2, 3}, {0x3400, 0xBC00, 0x4000, 0xBA00, 0x5640, 0});
  const io::NpyArray bf16 =
      half_npy(core::DType::kBFloat16, {2, 3}, {0x3E80, 0xBF80, 0x4000, 0xBF40, 0x42C8, 0});
  const std::vector<std::uint8_t> want = codes_run("qgemm", kACodes, kBCodes, kQuant);
  EXPECT_EQ(float_run("qgemm", f16, io::make_npy({3, 2}, kBReal), kQuant), want);
  EXPECT_EQ(float_run("qgemm", bf16, io::make_npy({3, 2}, kBReal), kQuant), want);
}

TEST(FloatInput, QgemmCalibratesMissingScalesFromMinMax) {
  // A: max 63.5 → scale 63.5 / 127 = 0.5; B per column (mask 2): 127 / 127 = 1 and 31.75 / 127 = 0.25.
  const std::vector<float> a{63.5f, -1.0f, 2.0f, -0.75f, 10.0f, 0.0f};
  const std::vector<float> b{127.0f, 31.75f, -2.0f, -0.125f, 0.0f, 0.5f};
  const std::vector<std::int8_t> a_codes{127, -2, 4, -2, 20, 0}, b_codes{127, 127, -2, 0, 0, 2};
  EXPECT_EQ(float_run("qgemm", io::make_npy({2, 3}, a), io::make_npy({3, 2}, b),
                      "out_scale: 100\nb_scale_mask: 2\n"),
            codes_run("qgemm", a_codes, b_codes, "a_scale: 0.5\nb_scale: [1.0, 0.25]\nout_scale: 100\n"));
}

TEST(FloatInput, OutDtypeF32DequantizesTheOutput) {
  const std::vector<std::uint8_t> codes = codes_run("qgemm", kACodes, kBCodes, kQuant);
  io::write_npy(temp_path("fa.npy"), io::make_npy({2, 3}, kAReal));
  io::write_npy(temp_path("fb.npy"), io::make_npy({3, 2}, kBReal));
  const std::string quant = testing::write_temp_file("f.yaml", kQuant);
  const auto r = run_treesim(run("qgemm", temp_path("fa.npy"), temp_path("fb.npy"), quant,
                                 temp_path("fc.npy"), {"--out-dtype", "f32"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const io::NpyArray c = io::read_npy(temp_path("fc.npy"));
  ASSERT_EQ(c.dtype, core::DType::kFloat32);
  std::vector<float> want;
  for (std::uint8_t q : codes)
    want.push_back(static_cast<float>(static_cast<double>(0.05f) * (static_cast<std::int8_t>(q) - 1)));
  EXPECT_EQ(io::npy_values<float>(c, "fc.npy"), want);
}

TEST(FloatInput, TgemmFloatWeightsAreTernarizedWithTheGivenScales) {
  // Per column 1 and 0.25: 1.2 → 1, 1.2 → 1, −0.6 → −1, −0.5 → 0 (tie to even), 0 → 0, 0.8 → 1.
  const std::vector<float> w{1.2f, 0.3f, -0.6f, -0.125f, 0.0f, 0.2f};
  EXPECT_EQ(float_run("tgemm", io::make_npy({2, 3}, kAReal), io::make_npy({3, 2}, w), kQuant),
            codes_run("tgemm", kACodes, {1, 1, -1, 0, 0, 1}, kQuant));
}

TEST(FloatInput, TgemmCalibratesTernaryScalesByAbsmean) {
  // mean |w| = 6 / 6 = 1: 2 → 1, 1 → 1, −2 → −1, −0.5 → 0 (tie), 0.5 → 0, 0 → 0.
  const std::vector<float> w{2.0f, 1.0f, -2.0f, -0.5f, 0.5f, 0.0f};
  EXPECT_EQ(float_run("tgemm", io::make_npy({2, 3}, kAReal), io::make_npy({3, 2}, w),
                      "a_zero_point: 3\na_scale: 0.5\nout_scale: 0.05\nout_zero_point: 1\n"),
            codes_run("tgemm", kACodes, {1, 1, -1, 0, 0, 0},
                      "a_zero_point: 3\na_scale: 0.5\nb_scale: 1.0\nout_scale: 0.05\nout_zero_point: 1\n"));
}

// The error line of a run on float operands.
std::string float_error(const char* kernel, const std::vector<float>& a, const std::vector<float>& b,
                        const std::string& quant_text, std::vector<std::string> extra = {}) {
  io::write_npy(temp_path("ea.npy"), io::make_npy({2, 3}, a));
  io::write_npy(temp_path("eb.npy"), io::make_npy({3, 2}, b));
  const std::string quant = testing::write_temp_file("e.yaml", quant_text);
  const auto r = run_treesim(
      run(kernel, temp_path("ea.npy"), temp_path("eb.npy"), quant, temp_path("never.npy"), std::move(extra)));
  EXPECT_EQ(r.exit_code, 2);
  return r.err;
}

TEST(FloatInput, NanIsOneLineErrorNamingTheFileAndElement) {
  std::vector<float> a = kAReal;
  a[1] = std::nanf("");
  EXPECT_EQ(
      float_error("qgemm", a, kBReal, kQuant),
      "treesim: " + temp_path("ea.npy") + ": element [0, 1] (index 1) is nan: expected a finite number\n");
}

TEST(FloatInput, InfinityIsOneLineErrorNamingTheFileAndElement) {
  std::vector<float> b = kBReal;
  b[4] = -INFINITY;
  EXPECT_EQ(
      float_error("tgemm", kAReal, b, kQuant),
      "treesim: " + temp_path("eb.npy") + ": element [2, 0] (index 4) is -inf: expected a finite number\n");
}

TEST(FloatInput, FloatOperandWithMultipliersOnlyIsOneLineError) {
  const std::string err = float_error("qgemm", kAReal, kBReal, "multiplier: 1073741824\nshift: 0\n");
  EXPECT_EQ(
      err, "treesim: " + temp_path("e.yaml") + ": " + temp_path("ea.npy") +
               " is float32, quantized on load: give out_scale (with a_scale and b_scale, or without them to "
               "calibrate from the data), not multiplier and shift\n");
}

TEST(FloatInput, IntegerOperandIsNeverCalibrated) {
  io::write_npy(temp_path("ia.npy"), io::make_npy({2, 3}, kACodes));
  io::write_npy(temp_path("fb.npy"), io::make_npy({3, 2}, kBReal));
  const std::string quant = testing::write_temp_file("i.yaml", "b_scale: 1\nout_scale: 1\n");
  const auto r =
      run_treesim(run("qgemm", temp_path("ia.npy"), temp_path("fb.npy"), quant, temp_path("never.npy")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "treesim: " + quant +
                       ": field 'a_scale': missing (only a float operand is calibrated on load)\n");
}

TEST(FloatInput, ScaleMaskTwoNeedsOneScalePerColumn) {
  io::write_npy(temp_path("ma.npy"), io::make_npy({2, 3}, kACodes));
  io::write_npy(temp_path("mb.npy"), io::make_npy({3, 2}, kBCodes));
  const std::string quant =
      testing::write_temp_file("m.yaml", "a_scale: 1\nb_scale: 1\nb_scale_mask: 2\nout_scale: 1\n");
  const auto r =
      run_treesim(run("qgemm", temp_path("ma.npy"), temp_path("mb.npy"), quant, temp_path("never.npy")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "treesim: " + quant +
                       ": field 'b_scale': 1 values, expected 2 (b_scale_mask 2: one per output column)\n");
}

TEST(FloatInput, OutDtypeF32NeedsAnOutputScale) {
  const auto r = run_treesim({"run", "qgemm", "--machine", source_path("configs/mini.yaml"), "--m", "2",
                              "--n", "2", "--k", "2", "--out-dtype", "f32", "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "treesim: --out-dtype: f32 dequantizes C with out_scale: give --quant with out_scale\n");
}

}  // namespace
}  // namespace treesim
