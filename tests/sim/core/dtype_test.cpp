#include "sim/core/dtype.h"

#include <gtest/gtest.h>

namespace treesim::core {
namespace {

constexpr DType kAll[] = {DType::kInt8,  DType::kUInt8,   DType::kInt16,
                          DType::kInt32, DType::kFloat32, DType::kFloat64};

TEST(DType, EveryNameParsesBackToItsType) {
  for (DType t : kAll) EXPECT_EQ(parse_dtype(dtype_name(t)), t) << dtype_name(t);
}

TEST(DType, OnlyCanonicalNamesParse) {
  for (const char* text : {"s8", "u8", "i8", "INT8", "int8 ", "", "int64", "float16", "bfloat16"})
    EXPECT_FALSE(parse_dtype(text).has_value()) << text;
}

TEST(DType, SizesAndShortNames) {
  EXPECT_EQ(dtype_bytes(DType::kInt8), 1u);
  EXPECT_EQ(dtype_bytes(DType::kUInt8), 1u);
  EXPECT_EQ(dtype_bytes(DType::kInt16), 2u);
  EXPECT_EQ(dtype_bytes(DType::kInt32), 4u);
  EXPECT_EQ(dtype_bytes(DType::kFloat32), 4u);
  EXPECT_EQ(dtype_bytes(DType::kFloat64), 8u);
  EXPECT_STREQ(dtype_short_name(DType::kUInt8), "u8");
  EXPECT_STREQ(dtype_short_name(DType::kFloat32), "f32");
}

TEST(DType, IntegerRanges) {
  EXPECT_EQ(dtype_min(DType::kUInt8), 0);
  EXPECT_EQ(dtype_max(DType::kUInt8), 255);
  EXPECT_EQ(dtype_min(DType::kInt8), -128);
  EXPECT_EQ(dtype_max(DType::kInt16), 32767);
  EXPECT_EQ(dtype_min(DType::kInt32), INT32_MIN);
  EXPECT_TRUE(is_integer(DType::kInt16));
  EXPECT_FALSE(is_integer(DType::kFloat32));
  EXPECT_TRUE(is_8bit(DType::kUInt8));
  EXPECT_FALSE(is_8bit(DType::kInt32));
}

}  // namespace
}  // namespace treesim::core
