// The gemmlowp / TFLite fixed-point primitives against every primitive vector in
// tests/data/quant (JSON and CSV), plus exhaustive-style checks against independent formulas.
#include "sim/numeric/fixed_point.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "tests/sim/numeric/test_vectors.h"

namespace treesim::numeric {
namespace {

using nlohmann::json;
using testing::quant_vectors;
using testing::read_csv;

const json& primitives(const char* name) {
  const json& rows = quant_vectors().at("primitives").at(name);
  EXPECT_FALSE(rows.empty()) << name;
  return rows;
}

std::int32_t i32(const json& v) { return v.get<std::int32_t>(); }

TEST(FixedPoint, SrdhmMatchesEveryVector) {
  for (const json& r : primitives("srdhm"))
    EXPECT_EQ(saturating_rounding_doubling_high_mul(i32(r["a"]), i32(r["b"])), i32(r["out"])) << r.dump();
}

TEST(FixedPoint, SrdhmOfInt32MinSquaredSaturates) {
  const std::int32_t lo = std::numeric_limits<std::int32_t>::min();
  EXPECT_EQ(saturating_rounding_doubling_high_mul(lo, lo), std::numeric_limits<std::int32_t>::max());
}

// floor((a·b + 2^30) / 2^31), the definition in quant.md §2.1, in exact 128-bit arithmetic.
std::int64_t srdhm_by_formula(std::int32_t a, std::int32_t b) {
  const __int128 n = static_cast<__int128>(a) * b + (static_cast<__int128>(1) << 30);
  const __int128 d = static_cast<__int128>(1) << 31;
  __int128 q = n / d;
  if (n % d != 0 && n < 0) --q;
  return static_cast<std::int64_t>(q);
}

TEST(FixedPoint, SrdhmIsRoundHalfUpOfTheExactProductOnRandomInputs) {
  std::mt19937 rng(1);
  std::uniform_int_distribution<std::int32_t> any(std::numeric_limits<std::int32_t>::min(),
                                                  std::numeric_limits<std::int32_t>::max());
  for (int i = 0; i < 200000; ++i) {
    const std::int32_t a = any(rng), b = i % 3 == 0 ? (1 << 30) : any(rng);
    if (a == std::numeric_limits<std::int32_t>::min() && b == a) continue;
    ASSERT_EQ(saturating_rounding_doubling_high_mul(a, b), srdhm_by_formula(a, b)) << a << " " << b;
  }
}

TEST(FixedPoint, RoundingDivideByPotMatchesEveryVector) {
  for (const json& r : primitives("rdbpot"))
    EXPECT_EQ(rounding_divide_by_pot(i32(r["x"]), r["exponent"].get<int>()), i32(r["out"])) << r.dump();
}

// gemmlowp's own property: RoundingDivideByPOT(x, e) == std::round(x / 2^e), for every e.
TEST(FixedPoint, RoundingDivideByPotEqualsStdRoundForEveryExponent) {
  std::mt19937 rng(2);
  std::uniform_int_distribution<std::int32_t> any(std::numeric_limits<std::int32_t>::min(),
                                                  std::numeric_limits<std::int32_t>::max());
  for (int e = 0; e <= 31; ++e) {
    std::vector<std::int32_t> xs;
    // Exact halves ±(2k+1)·2^(e−1), where the tie rule decides, then random values.
    for (std::int64_t k = 0; e > 0 && k < 4; ++k) {
      const std::int64_t tie = (2 * k + 1) * (std::int64_t{1} << (e - 1));
      if (tie <= std::numeric_limits<std::int32_t>::max()) {
        xs.push_back(static_cast<std::int32_t>(tie));
        xs.push_back(static_cast<std::int32_t>(-tie));
      }
    }
    for (int i = 0; i < 5000; ++i) xs.push_back(any(rng));
    for (std::int32_t x : xs) {
      const double expected = std::round(static_cast<double>(x) / std::ldexp(1.0, e));
      ASSERT_EQ(rounding_divide_by_pot(x, e), static_cast<std::int64_t>(expected)) << x << " >> " << e;
    }
  }
}

TEST(FixedPoint, RoundingRightShiftUpMatchesEveryVector) {
  for (const json& r : primitives("rshift_round_up"))
    EXPECT_EQ(rounding_right_shift_up(i32(r["x"]), r["exponent"].get<int>()), i32(r["out"])) << r.dump();
}

TEST(FixedPoint, SaturatingRoundingMultiplyByPotMatchesEveryVector) {
  for (const json& r : primitives("saturating_rounding_multiply_by_pot"))
    EXPECT_EQ(saturating_rounding_multiply_by_pot(i32(r["x"]), r["exponent"].get<int>()), i32(r["out"]))
        << r.dump();
}

TEST(FixedPoint, QuantizeMultiplierMatchesEveryVectorInBothBuilds) {
  for (const json& r : primitives("quantize_multiplier")) {
    ASSERT_TRUE(r["error"].is_null()) << r.dump();
    const Rounding build = r["build"] == "single" ? Rounding::kSingle : Rounding::kDouble;
    const QuantizedMultiplier m = quantize_multiplier(r["real"].get<double>(), build);
    EXPECT_EQ(m.multiplier, i32(r["q"])) << r.dump();
    EXPECT_EQ(m.shift, r["shift"].get<int>()) << r.dump();
  }
}

TEST(FixedPoint, QuantizeMultiplierRejectsNonFiniteValues) {
  EXPECT_THROW(quantize_multiplier(std::nan("")), std::invalid_argument);
  EXPECT_THROW(quantize_multiplier(INFINITY), std::invalid_argument);
}

// Each flavour's expected value, or null when the call is outside that flavour's contract.
TEST(FixedPoint, MbqmMatchesEveryVectorInEachFlavourOrReportsItsContract) {
  for (const json& r : primitives("mbqm")) {
    for (Rounding mode : {Rounding::kDouble, Rounding::kSingle, Rounding::kDoubleUpward}) {
      const json& expected = r[to_string(mode)];
      const auto x = i32(r["x"]), q = i32(r["multiplier"]);
      const int shift = r["shift"].get<int>();
      const auto violation = mbqm_contract_violation(x, q, shift, mode);
      if (expected.is_null()) {
        EXPECT_TRUE(violation.has_value()) << to_string(mode) << " " << r.dump();
      } else {
        EXPECT_FALSE(violation.has_value())
            << to_string(mode) << " " << r.dump() << ": " << violation.value_or("");
        EXPECT_EQ(multiply_by_quantized_multiplier(x, q, shift, mode), i32(expected))
            << to_string(mode) << " " << r.dump();
      }
    }
  }
}

TEST(FixedPoint, MbqmInt64MatchesEveryVector) {
  for (const json& r : primitives("mbqm_int64")) {
    ASSERT_TRUE(r["error"].is_null()) << r.dump();
    EXPECT_EQ(multiply_by_quantized_multiplier_int64(r["x"].get<std::int64_t>(), i32(r["multiplier"]),
                                                     r["shift"].get<int>()),
              i32(r["out"]))
        << r.dump();
  }
}

// The flat CSV copy of the same primitives, as the quant note offers it for C++ tests.
TEST(FixedPoint, EveryPrimitiveInTheCsvFilePasses) {
  int checked = 0;
  for (const auto& row : read_csv("quant/primitives.csv")) {
    const std::string& op = row.at("op");
    const std::string what =
        op + "," + row.at("in0") + "," + row.at("in1") + "," + row.at("in2") + " " + row.at("tag");
    const auto in = [&](const char* c) { return std::stoll(row.at(c)); };
    const std::string& out0 = row.at("out0");
    if (op == "srdhm") {
      EXPECT_EQ(saturating_rounding_doubling_high_mul(in("in0"), in("in1")), std::stoll(out0)) << what;
    } else if (op == "rdbpot") {
      EXPECT_EQ(rounding_divide_by_pot(in("in0"), in("in1")), std::stoll(out0)) << what;
    } else if (op == "rshift_round_up") {
      EXPECT_EQ(rounding_right_shift_up(in("in0"), in("in1")), std::stoll(out0)) << what;
    } else if (op == "sat_rounding_mul_by_pot") {
      EXPECT_EQ(saturating_rounding_multiply_by_pot(in("in0"), in("in1")), std::stoll(out0)) << what;
    } else if (op.rfind("quantize_multiplier_", 0) == 0) {
      const Rounding build = *parse_rounding(op.substr(std::string("quantize_multiplier_").size()));
      const QuantizedMultiplier m = quantize_multiplier(std::stod(row.at("in0")), build);
      EXPECT_EQ(m.multiplier, std::stoll(out0)) << what;
      EXPECT_EQ(m.shift, std::stoll(row.at("out1"))) << what;
    } else if (op == "mbqm_int64") {
      EXPECT_EQ(multiply_by_quantized_multiplier_int64(in("in0"), in("in1"), in("in2")), std::stoll(out0))
          << what;
    } else if (op.rfind("mbqm_", 0) == 0) {
      const Rounding mode = *parse_rounding(op.substr(5));
      const auto x = static_cast<std::int32_t>(in("in0")), q = static_cast<std::int32_t>(in("in1"));
      const int shift = static_cast<int>(in("in2"));
      if (out0 == "ERROR") {
        EXPECT_TRUE(mbqm_contract_violation(x, q, shift, mode).has_value()) << what;
      } else {
        EXPECT_FALSE(mbqm_contract_violation(x, q, shift, mode).has_value()) << what;
        EXPECT_EQ(multiply_by_quantized_multiplier(x, q, shift, mode), std::stoll(out0)) << what;
      }
    } else if (op.rfind("quantize_f32_", 0) == 0) {
      continue;  // covered with the quantize tests
    } else {
      ADD_FAILURE() << "unknown op in primitives.csv: " << op;
    }
    ++checked;
  }
  EXPECT_GT(checked, 400);
}

TEST(FixedPoint, RoundingNamesRoundTrip) {
  for (Rounding r : {Rounding::kDouble, Rounding::kSingle, Rounding::kDoubleUpward})
    EXPECT_EQ(parse_rounding(to_string(r)), r);
  EXPECT_FALSE(parse_rounding("nearest").has_value());
}

}  // namespace
}  // namespace treesim::numeric
