#include "sim/numeric/quantize.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/sim/numeric/test_vectors.h"

namespace treesim::numeric {
namespace {

using nlohmann::json;

QuantParams params_of(const json& r) {
  QuantParams p;
  p.scale = r["scale"].get<float>();
  p.zero_point = r["zero_point"].get<std::int32_t>();
  p.dtype = *core::parse_dtype(r["dtype"].get<std::string>());
  return p;
}

TEST(Quantize, TfLiteRoundingMatchesEveryVector) {
  for (const json& r : testing::quant_vectors()["primitives"]["quantize_f32"])
    EXPECT_EQ(quantize(r["value"].get<float>(), params_of(r), QuantizeRounding::kTfLite),
              r["tflite"].get<int>())
        << r.dump();
}

TEST(Quantize, OneDnnRoundingMatchesEveryVector) {
  for (const json& r : testing::quant_vectors()["primitives"]["quantize_f32"])
    EXPECT_EQ(quantize(r["value"].get<float>(), params_of(r), QuantizeRounding::kOneDnn),
              r["onednn"].get<int>())
        << r.dump();
}

TEST(Quantize, SaturatesToTheTypesRange) {
  EXPECT_EQ(quantize(1e30f, {1.0f, 0, DType::kInt8}), 127);
  EXPECT_EQ(quantize(-1e30f, {1.0f, 0, DType::kInt8}), -128);
  EXPECT_EQ(quantize(1e30f, {1.0f, 0, DType::kUInt8}, QuantizeRounding::kOneDnn), 255);
  EXPECT_EQ(quantize(-INFINITY, {1.0f, 3, DType::kUInt8}), 0);
  EXPECT_EQ(quantize(1e30f, {1.0f, 0, DType::kInt32}), 2147483520);
}

TEST(Quantize, NanQuantizesToTheZeroPoint) {
  EXPECT_EQ(quantize(std::nanf(""), {0.5f, 7, DType::kUInt8}), 7);
}

TEST(Quantize, DequantizeInvertsQuantizeOnEveryUint8Code) {
  const QuantParams p{0.0625f, 100, DType::kUInt8};  // a power-of-two scale: every step is exact
  for (int q = 0; q <= 255; ++q) {
    EXPECT_EQ(dequantize(q, p), 0.0625 * (q - 100));
    EXPECT_EQ(quantize(static_cast<float>(dequantize(q, p)), p), q);
  }
}

TEST(Quantize, SaturatesToTheTypeRange) {
  EXPECT_TRUE(is_quantized(DType::kInt32));
  EXPECT_FALSE(is_quantized(DType::kInt16));
  EXPECT_EQ(saturate(300, DType::kUInt8), 255);
  EXPECT_EQ(saturate(-300, DType::kInt8), -128);
  EXPECT_EQ(saturate(std::int64_t{1} << 40, DType::kInt32), 2147483647);
}

}  // namespace
}  // namespace treesim::numeric
