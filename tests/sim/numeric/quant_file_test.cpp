#include "sim/numeric/quant_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "tests/sim/numeric/test_vectors.h"

namespace treesim::numeric {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string error_of(const std::string& yaml) {
  try {
    parse_quant_yaml(yaml, "q.yaml");
  } catch (const QuantFileError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(QuantFile, DefaultsAreInt8PerTensorDoubleRoundingAndTheFullRange) {
  const QuantFile q = parse_quant_yaml("multiplier: 1073741824\nshift: -1\n", "q.yaml");
  EXPECT_EQ(q.a_zero_point, 0);
  EXPECT_EQ(q.b_zero_point, 0);
  EXPECT_EQ(q.out.out_zero_point, 0);
  EXPECT_EQ(q.out.out_dtype, DType::kInt8);
  EXPECT_EQ(q.out.act_min, -128);
  EXPECT_EQ(q.out.act_max, 127);
  EXPECT_EQ(q.out.rounding, Rounding::kDouble);
  ASSERT_EQ(q.out.multipliers.size(), 1u);
  EXPECT_EQ(q.out.multipliers[0], (QuantizedMultiplier{1073741824, -1}));
  EXPECT_FALSE(q.scales.has_value());
}

TEST(QuantFile, Uint8DefaultsToItsOwnRange) {
  const QuantFile q = parse_quant_yaml("out_dtype: uint8\nmultiplier: 1\nshift: 0\n", "q.yaml");
  EXPECT_EQ(q.out.act_min, 0);
  EXPECT_EQ(q.out.act_max, 255);
}

TEST(QuantFile, ReadsEveryKeyAndPerChannelLists) {
  const QuantFile q = parse_quant_yaml(
      "a_zero_point: -3\nb_zero_point: 0\nout_zero_point: 5\nout_dtype: int8\nact_min: 5\nact_max: 100\n"
      "rounding: double_upward\nmultiplier: [1073741824, 1500000000]\nshift: [-1, 2]\n",
      "q.yaml");
  EXPECT_EQ(q.a_zero_point, -3);
  EXPECT_EQ(q.out.out_zero_point, 5);
  EXPECT_EQ(q.out.act_min, 5);
  EXPECT_EQ(q.out.act_max, 100);
  EXPECT_EQ(q.out.rounding, Rounding::kDoubleUpward);
  ASSERT_EQ(q.out.multipliers.size(), 2u);
  EXPECT_EQ(q.out.multipliers[1], (QuantizedMultiplier{1500000000, 2}));
}

// The scales of every TFLite GEMM vector give exactly its multiplier and shift (int8 path: double
// product; uint8: the legacy f32 product, the default for uint8 outputs).
TEST(QuantFile, ScalesDeriveTheMultipliersOfEveryTfLiteVector) {
  for (const auto& g : testing::quant_vectors()["gemm_tflite"]) {
    std::string b = "[";
    for (const auto& s : g["b_scale"]) b += fmt::format("{:.17g}, ", s.get<double>());
    b += "]";
    const std::string yaml = fmt::format("out_dtype: {}\na_scale: {:.17g}\nb_scale: {}\nout_scale: {:.17g}\n",
                                         g["dtype"].get<std::string>(), g["a_scale"].get<double>(), b,
                                         g["out_scale"].get<double>());
    const QuantFile q = parse_quant_yaml(yaml, "q.yaml");
    ASSERT_EQ(q.out.multipliers.size(), g["multiplier"].size()) << g["name"];
    for (std::size_t c = 0; c < g["multiplier"].size(); ++c) {
      EXPECT_EQ(q.out.multipliers[c].multiplier, g["multiplier"][c].get<std::int32_t>())
          << g["name"] << " " << c;
      EXPECT_EQ(q.out.multipliers[c].shift, g["shift"][c].get<int>()) << g["name"] << " " << c;
      EXPECT_EQ(real_multipliers(*q.scales)[c], g["real_multiplier"][c].get<double>())
          << g["name"] << " " << c;
    }
  }
}

TEST(QuantFile, ScaleProductCanBeChosen) {
  const char* scales =
      "a_scale: 0.04670632630586624\nb_scale: 0.021918000653386116\nout_scale: 0.2052697092294693\n";
  const QuantFile f32 = parse_quant_yaml(std::string(scales) + "scale_product: float32\n", "q.yaml");
  const QuantFile f64 = parse_quant_yaml(std::string(scales) + "scale_product: double\n", "q.yaml");
  EXPECT_TRUE(f32.scales->float32_product);
  EXPECT_FALSE(f64.scales->float32_product);
  EXPECT_NE(real_multipliers(*f32.scales)[0], real_multipliers(*f64.scales)[0]);
}

TEST(QuantFile, FloatRoundingTakesOnnxRuntimesFloat32Multiplier) {
  const QuantFile q =
      parse_quant_yaml("rounding: float\na_scale: 0.1\nb_scale: [0.3, 0.5]\nout_scale: 0.7\n", "q.yaml");
  ASSERT_EQ(q.out.multipliers.size(), 2u);
  EXPECT_EQ(q.out.rounding, Rounding::kFloat);
  EXPECT_EQ(q.out.multipliers[0], float_multiplier(onnx_requant_scale(0.1f, 0.3f, 0.7f)));
  EXPECT_EQ(q.out.multipliers[1], float_multiplier(onnx_requant_scale(0.1f, 0.5f, 0.7f)));
}

TEST(QuantFile, FloatRoundingRefusesMultiplierAndShift) {
  EXPECT_EQ(error_of("rounding: float\nmultiplier: 1\nshift: 0\n"),
            "q.yaml:1:11: field 'rounding': float rounding takes a_scale, b_scale and out_scale (its "
            "multiplier is fl32(fl32(a_scale·b_scale)/out_scale)), not multiplier and shift");
}

TEST(QuantFile, ZeroWeightScaleGivesAZeroMultiplier) {
  const QuantFile q = parse_quant_yaml("a_scale: 0.5\nb_scale: [0.25, 0]\nout_scale: 1\n", "q.yaml");
  EXPECT_EQ(q.out.multipliers[1], (QuantizedMultiplier{0, 0}));
}

TEST(QuantFile, UnknownKeyIsRejectedWithItsPosition) {
  EXPECT_THAT(error_of("multiplier: 1\nshift: 0\nzero_point: 3\n"),
              StartsWith("q.yaml:3:1: unknown field 'zero_point' (expected one of:"));
}

TEST(QuantFile, WrongTypeNamesFieldExpectationAndValue) {
  EXPECT_EQ(error_of("multiplier: 1\nshift: 0\nout_dtype: int16\n"),
            "q.yaml:3:12: field 'out_dtype': expected int8 or uint8, got 'int16'");
  EXPECT_EQ(error_of("multiplier: 1\nshift: [0, 40]\n"),
            "q.yaml:2:12: field 'shift[1]': expected an integer in [-31, 31], got '40'");
  EXPECT_EQ(error_of("multiplier: 1.5\nshift: 0\n"),
            "q.yaml:1:13: field 'multiplier': expected an integer in [-2147483648, 2147483647], got '1.5'");
  EXPECT_EQ(error_of("out_zero_point: 300\nmultiplier: 1\nshift: 0\n"),
            "q.yaml:1:17: field 'out_zero_point': expected an integer in [-128, 127], got '300'");
  EXPECT_EQ(error_of("rounding: nearest\nmultiplier: 1\nshift: 0\n"),
            "q.yaml:1:11: field 'rounding': expected double or double_upward or float or single, got 'nearest'");
  EXPECT_EQ(error_of("a_scale: -1\nb_scale: 1\nout_scale: 1\n"),
            "q.yaml:1:10: field 'a_scale': expected a finite number > 0, got '-1'");
}

TEST(QuantFile, SingleRoundingRejectsNegativeMultipliersAndBigShifts) {
  EXPECT_THAT(error_of("rounding: single\nmultiplier: -5\nshift: 0\n"), HasSubstr("field 'multiplier'"));
  EXPECT_THAT(error_of("rounding: single\nmultiplier: 5\nshift: 31\n"), HasSubstr("in [-31, 30]"));
}

TEST(QuantFile, MismatchedMultiplierAndShiftCountsAreRejected) {
  EXPECT_EQ(error_of("multiplier: [1, 2]\nshift: [0]\n"),
            "q.yaml:2:8: field 'shift': expected 2 value(s), one per multiplier, got a list");
}

TEST(QuantFile, MultipliersAndScalesAreExclusive) {
  EXPECT_THAT(error_of("multiplier: 1\nshift: 0\na_scale: 1\n"), HasSubstr("not both"));
}

TEST(QuantFile, MissingMultiplierOrScaleIsNamed) {
  EXPECT_THAT(error_of("a_zero_point: 1\n"), HasSubstr("field 'multiplier': missing"));
  EXPECT_THAT(error_of("multiplier: 1\n"), HasSubstr("field 'shift': missing"));
  EXPECT_THAT(error_of("a_scale: 1\nb_scale: 1\n"), HasSubstr("field 'out_scale': missing"));
}

TEST(QuantFile, EmptyActivationRangeIsRejected) {
  EXPECT_THAT(error_of("act_min: 10\nact_max: 5\nmultiplier: 1\nshift: 0\n"),
              StartsWith("q.yaml:2:10: field 'act_max': expected a value >= act_min (10), got '5'"));
}

TEST(QuantFile, NonMappingAndBadYamlAreOneLineErrors) {
  EXPECT_THAT(error_of("- 1\n- 2\n"), StartsWith("q.yaml:1:1: expected a quantization description"));
  EXPECT_THAT(error_of("multiplier: [1, 2\n"), StartsWith("q.yaml:"));
  EXPECT_EQ(error_of("a: [\n").find('\n'), std::string::npos);
}

TEST(QuantFile, MissingFileIsAnError) {
  EXPECT_THROW(load_quant_file("/nonexistent/q.yaml"), QuantFileError);
}

}  // namespace
}  // namespace treesim::numeric
