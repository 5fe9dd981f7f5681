#include "sim/io/npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "sim/io/atomic_file.h"
#include "tests/test_support.h"

namespace treesim::io {
namespace {

std::string npy_error(std::string_view data) {
  try {
    parse_npy(data, "x.npy");
  } catch (const NpyError& e) {
    return e.what();
  }
  return "(no error)";
}

// A .npy file written by hand, as NumPy lays it out: magic, version, header length, header, data.
std::string handmade(const std::string& header, const std::string& data, int major = 1) {
  std::string h = header;
  const std::size_t prefix = major == 1 ? 10 : 12;
  h.append((64 - (prefix + h.size() + 1) % 64) % 64, ' ');
  h += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (std::size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    out += static_cast<char>((h.size() >> (8 * i)) & 0xFF);
  return out + h + data;
}

template <typename T>
void expect_round_trip(std::vector<std::uint64_t> shape, std::vector<T> values) {
  const NpyArray a = make_npy(shape, values);
  const std::string bytes = to_npy_bytes(a);
  const NpyArray b = parse_npy(bytes, "x.npy");
  EXPECT_EQ(b.dtype, npy_dtype_of<T>());
  EXPECT_EQ(b.shape, shape);
  EXPECT_EQ(npy_values<T>(b, "x.npy"), values);
}

TEST(Npy, EveryDtypeRoundTrips) {
  expect_round_trip<std::int8_t>({2, 3}, {-128, -1, 0, 1, 2, 127});
  expect_round_trip<std::uint8_t>({3}, {0, 128, 255});
  expect_round_trip<std::int32_t>({1, 2}, {std::numeric_limits<std::int32_t>::min(), 7});
  expect_round_trip<float>({2}, {1.5f, -0.25f});
  expect_round_trip<double>({1, 1, 2}, {3.141592653589793, -1e300});
}

TEST(Npy, ScalarAndEmptyShapesRoundTrip) {
  expect_round_trip<std::int32_t>({}, {42});
  expect_round_trip<std::int8_t>({0, 3}, {});
}

TEST(Npy, WrittenHeaderIsNumpysVersion1WithAlignedData) {
  const std::string bytes = to_npy_bytes(make_npy<std::int32_t>({2, 3}, {1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const std::size_t header_len = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9])
                                                                            << 8;
  EXPECT_EQ((10 + header_len) % 64, 0u);
  EXPECT_EQ(bytes.substr(10, header_len).find("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }"),
            0u);
  EXPECT_EQ(bytes.back(), 0);
  EXPECT_EQ(bytes.size(), 10 + header_len + 24);
}

TEST(Npy, ReadsVersion2HeadersAndOtherKeyOrders) {
  const NpyArray a = parse_npy(
      handmade("{\"shape\": (3,), \"fortran_order\": False, \"descr\": \"|u1\"}", "\x01\x02\x03", 2),
      "x.npy");
  EXPECT_EQ(a.dtype, core::DType::kUInt8);
  EXPECT_EQ(npy_values<std::uint8_t>(a, "x.npy"), (std::vector<std::uint8_t>{1, 2, 3}));
}

TEST(Npy, Float16ReadsExactlyAsFloat) {
  // 1.0, −2.0, the smallest subnormal 2^−24, the largest half 65504, +inf.
  const NpyArray a = parse_npy(handmade("{'descr': '<f2', 'fortran_order': False, 'shape': (5,), }",
                                        std::string("\x00\x3c\x00\xc0\x01\x00\xff\x7b\x00\x7c", 10)),
                               "x.npy");
  EXPECT_EQ(a.dtype, core::DType::kFloat16);
  EXPECT_EQ(npy_floats(a, "x.npy"), (std::vector<float>{1.0f, -2.0f, std::ldexp(1.0f, -24), 65504.0f,
                                                        std::numeric_limits<float>::infinity()}));
}

TEST(Npy, BFloat16ReadsExactlyAsFloat) {
  // bfloat16 is a float32's top half: 0x3F80 = 1.0, 0xC040 = −3.0, 0x3F81 = 1 + 2^−7; ml_dtypes writes '<V2'.
  for (const char* descr : {"'<V2'", "'bfloat16'"}) {
    const NpyArray a =
        parse_npy(handmade(std::string("{'descr': ") + descr + ", 'fortran_order': False, 'shape': (3,), }",
                           std::string("\x80\x3f\x40\xc0\x81\x3f", 6)),
                  "x.npy");
    EXPECT_EQ(a.dtype, core::DType::kBFloat16);
    EXPECT_EQ(npy_floats(a, "x.npy"), (std::vector<float>{1.0f, -3.0f, 1.0f + std::ldexp(1.0f, -7)}));
  }
}

TEST(Npy, FloatsOfAnIntegerArrayAreRefused) {
  EXPECT_THROW(npy_floats(make_npy<std::int8_t>({1}, {1}), "x.npy"), NpyError);
}

TEST(Npy, IntegersWidenFromEveryIntegerDtype) {
  EXPECT_EQ(npy_integers(make_npy<std::int8_t>({2}, {-5, 5}), "a"), (std::vector<std::int32_t>{-5, 5}));
  EXPECT_EQ(npy_integers(make_npy<std::uint8_t>({2}, {200, 5}), "a"), (std::vector<std::int32_t>{200, 5}));
  EXPECT_THROW(npy_integers(make_npy<float>({1}, {1.0f}), "a"), NpyError);
}

TEST(Npy, WrongDtypeNamesTheFileAndBothTypes) {
  const NpyArray a = make_npy<float>({1}, {1.0f});
  try {
    npy_values<std::int8_t>(a, "w.npy");
    FAIL() << "no error";
  } catch (const NpyError& e) {
    EXPECT_STREQ(e.what(), "w.npy: expected dtype int8, got float32");
  }
}

TEST(Npy, BadFilesGiveOneLineErrors) {
  EXPECT_EQ(npy_error("PK\x03\x04 not numpy"),
            "x.npy: not a .npy file (expected the magic \\x93NUMPY at the start)");
  EXPECT_EQ(
      npy_error(handmade("{'descr': '<i4', 'fortran_order': True, 'shape': (1,), }", std::string(4, '\0'))),
      "x.npy: expected C order (fortran_order False), got Fortran order");
  EXPECT_EQ(npy_error(handmade("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }",
                               std::string(10, '\0'))),
            "x.npy: truncated .npy file: expected 16 data bytes for int32 (2, 2), got 10");
  EXPECT_EQ(
      npy_error(handmade("{'descr': '>i4', 'fortran_order': False, 'shape': (1,), }", std::string(4, '\0'))),
      "x.npy: expected dtype int8, uint8, int32, float16, bfloat16, float32 or float64 (little-endian), got "
      "'>i4' "
      "(big-endian)");
  EXPECT_EQ(
      npy_error(handmade("{'descr': '<i2', 'fortran_order': False, 'shape': (1,), }", std::string(2, '\0'))),
      "x.npy: expected dtype int8, uint8, int32, float16, bfloat16, float32 or float64 (little-endian), got "
      "'<i2'");
  const std::string good = to_npy_bytes(make_npy<std::int8_t>({1}, {1}));
  EXPECT_EQ(npy_error(good.substr(0, 40)).rfind("x.npy: truncated .npy file (header of", 0), 0u);
  EXPECT_EQ(npy_error(std::string("\x93NUMPY\x04\x00", 8)),
            "x.npy: expected .npy format version 1.0, 2.0 or 3.0, got 4.0");
  EXPECT_EQ(npy_error(handmade("{'descr': '|i1', 'shape': (1,), }", "x"))
                .rfind("x.npy: bad .npy header: missing", 0),
            0u);
  for (const std::string& e : {npy_error("garbage"), npy_error(handmade("{'descr' '|i1'}", ""))})
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
}

TEST(Npy, WriteAndReadAFile) {
  const std::string path = testing::temp_path("rw.npy");
  write_npy(path, make_npy<std::int32_t>({3}, {1, -2, 3}));
  EXPECT_EQ(npy_values<std::int32_t>(read_npy(path), path), (std::vector<std::int32_t>{1, -2, 3}));
  EXPECT_THROW(read_npy(testing::temp_path("missing.npy")), NpyError);
}

TEST(Npy, MakeNpyRejectsAShapeThatDoesNotMatchTheValues) {
  EXPECT_THROW(make_npy<std::int8_t>({2, 2}, {1, 2, 3}), NpyError);
}

}  // namespace
}  // namespace treesim::io
