// The contract's pieces that need no kernel: option checking and parsing, element comparison,
// checked arithmetic.
#include "kernels/kernel.h"

#include <gtest/gtest.h>

namespace treesim::kernels {
namespace {

std::vector<OptionSpec> specs() {
  return {{"m", OptionKind::kUnsigned, "rows", std::nullopt, {}, 1, std::nullopt},
          {"zero", OptionKind::kSigned, "zero point", std::nullopt, {}, -128, 127},
          {"act",
           OptionKind::kChoice,
           "clamp",
           OptionValue{std::string("none")},
           {"none", "relu", "relu6"},
           {},
           {}},
          {"fast", OptionKind::kFlag, "go", std::nullopt, {}, {}, {}}};
}

TEST(KernelOptions, ParseConvertsByKindAndFillsDefaults) {
  Result<Options> o = parse_options(specs(), {{"m", "12"}, {"zero", "-7"}, {"fast", "true"}});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->unsigned_int("m"), 12u);
  EXPECT_EQ(o->signed_int("zero"), -7);
  EXPECT_TRUE(o->flag("fast"));
  EXPECT_EQ(o->text("act"), "none");
}

TEST(KernelOptions, AbsentOptionsWithoutDefaultStayAbsent) {
  Result<Options> o = parse_options(specs(), {});
  ASSERT_TRUE(o.ok());
  EXPECT_FALSE(o->has("m"));
  EXPECT_FALSE(o->unsigned_int("m").has_value());
  EXPECT_FALSE(o->flag("fast"));
}

TEST(KernelOptions, ChoiceOutsideItsValuesNamesTheOptionAndTheChoices) {
  Result<Options> o = parse_options(specs(), {{"act", "gelu"}});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.errors().front(), (core::Error{"--act", "expected none, relu or relu6, got 'gelu'"}));
}

TEST(KernelOptions, IntegerOutsideItsRangeIsAnError) {
  Result<Options> o = parse_options(specs(), {{"zero", "300"}, {"m", "0"}});
  ASSERT_FALSE(o.ok());
  ASSERT_EQ(o.errors().size(), 2u);
  EXPECT_EQ(o.errors()[0], (core::Error{"--m", "expected an integer at least 1, got 0"}));
  EXPECT_EQ(o.errors()[1], (core::Error{"--zero", "expected an integer in [-128, 127], got 300"}));
}

TEST(KernelOptions, TextThatIsNotOfTheKindIsAnError) {
  Result<Options> o = parse_options(specs(), {{"m", "-3"}, {"fast", "maybe"}});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.errors()[0].where, "--fast");
  EXPECT_EQ(o.errors()[1], (core::Error{"--m", "expected a non-negative integer, got '-3'"}));
}

TEST(KernelOptions, UnknownOptionIsAnError) {
  Result<Options> o = parse_options(specs(), {{"bogus", "1"}});
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.errors().front(), (core::Error{"--bogus", "no such option"}));
}

TEST(KernelOptions, CheckRefusesAValueOfTheWrongKind) {
  Options o;
  o.set("m", std::string("twelve"));
  core::Errors e = check_options(specs(), o);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].where, "--m");
}

TEST(KernelVerify, FirstMismatchIsNamedByItsIndex) {
  std::vector<OutputArray> arrays{{"C", core::DType::kInt8, {2, 3}, {}}};
  DramImage got{{"C", {1, 2, 3, 4, 5, 6}}}, want{{"C", {1, 2, 3, 4, 0, 7}}};
  report::VerifyResult v = compare_arrays(arrays, got, want);
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.mismatches, 2u);
  EXPECT_EQ(v.first_mismatch, "C[1,1]: got 5, expected 0");
}

TEST(KernelVerify, ElementsAreComparedAsTheirType) {
  std::vector<OutputArray> arrays{{"Y", core::DType::kInt8, {1}, {}}};
  report::VerifyResult v = compare_arrays(arrays, {{"Y", {0xff}}}, {{"Y", {0xfe}}});
  EXPECT_EQ(v.first_mismatch, "Y[0]: got -1, expected -2");
}

TEST(KernelVerify, EqualOutputsAreOk) {
  std::vector<OutputArray> arrays{{"Y", core::DType::kInt32, {2}, {}}};
  DramImage same{{"Y", std::vector<std::uint8_t>(8, 7)}};
  EXPECT_TRUE(compare_arrays(arrays, same, same).ok);
}

TEST(KernelVerify, AMissingOutputIsAMismatch) {
  std::vector<OutputArray> arrays{{"Y", core::DType::kInt8, {2}, {}}};
  report::VerifyResult v = compare_arrays(arrays, {}, {{"Y", {1, 2}}});
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.first_mismatch, "0 elements, expected 2");
}

TEST(KernelArithmetic, CheckedMultiplyAndAddDetectOverflow) {
  EXPECT_EQ(checked_mul(1u << 20, 1u << 20), std::uint64_t{1} << 40);
  EXPECT_FALSE(checked_mul(10000000000ull, 10000000000ull).has_value());
  EXPECT_FALSE(checked_add(~std::uint64_t{0}, 1).has_value());
  EXPECT_EQ(checked_add(2, 3), 5u);
}

}  // namespace
}  // namespace treesim::kernels
