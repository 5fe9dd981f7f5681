#include "sim/io/idx.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include "tests/test_support.h"

namespace treesim::io {
namespace {

// An IDX file of unsigned bytes, laid out by hand: magic 00 00 08 RANK, big-endian dimensions, data.
std::string idx_bytes(const std::vector<std::uint32_t>& dims, const std::string& data) {
  std::string out{'\0', '\0', '\x08', static_cast<char>(dims.size())};
  for (std::uint32_t d : dims)
    for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((d >> shift) & 0xFF);
  return out + data;
}

std::string gzip(const std::string& data) {
  z_stream z{};
  deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, data.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string error_of(const std::string& data) {
  try {
    parse_idx(gunzip_if_gzipped(data, "x.idx"), "x.idx");
  } catch (const IdxError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Idx, ReadsShapeAndValuesInCOrder) {
  const IdxArray a = parse_idx(idx_bytes({2, 3}, "\x01\x02\x03\x04\x05\xff"), "x.idx");
  EXPECT_EQ(a.shape, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(a.values, (std::vector<std::uint8_t>{1, 2, 3, 4, 5, 255}));
}

TEST(Idx, GzippedFileReadsAsThePlainOne) {
  const std::string plain = idx_bytes({4}, "\x09\x08\x07\x06");
  const std::string path = testing::write_temp_file("labels.idx.gz", gzip(plain));
  EXPECT_EQ(read_idx(path).values, (std::vector<std::uint8_t>{9, 8, 7, 6}));
}

TEST(Idx, WrongMagicIsOneLineError) {
  EXPECT_EQ(error_of("\x93NUMPY\x01\x00"),
            "x.idx: not an IDX file: expected a magic 00 00 TYPE RANK (RANK ≥ 1), got 147 78 85 77");
}

TEST(Idx, ElementTypeOtherThanUnsignedByteIsRefused) {
  std::string b = idx_bytes({1}, "\x01");
  b[2] = '\x0d';
  EXPECT_EQ(error_of(b), "x.idx: IDX element type 13 is not supported: expected 8 (unsigned byte)");
}

TEST(Idx, TruncatedDataIsOneLineError) {
  EXPECT_EQ(error_of(idx_bytes({2, 3}, "\x01\x02\x03")),
            "x.idx: truncated IDX file: its dimensions need more than the 3 bytes of data it has");
}

TEST(Idx, TruncatedHeaderIsOneLineError) {
  EXPECT_EQ(error_of(idx_bytes({2, 3}, "").substr(0, 9)),
            "x.idx: truncated IDX file: 9 bytes, expected a 12-byte header for rank 2");
  EXPECT_EQ(error_of(std::string("\0\0", 2)),
            "x.idx: truncated IDX file: 2 bytes, expected at least a 4-byte magic");
}

TEST(Idx, TruncatedGzipStreamIsOneLineError) {
  const std::string z = gzip(idx_bytes({64}, std::string(64, 'a')));
  EXPECT_EQ(error_of(z.substr(0, z.size() / 2)), "x.idx: truncated gzip stream");
}

TEST(Idx, BytesPastTheDataAreRefused) {
  EXPECT_EQ(error_of(idx_bytes({2}, "\x01\x02\x03")),
            "x.idx: IDX file has 1 bytes past the 2 elements its dimensions give");
}

TEST(Idx, MissingFileNamesThePath) {
  try {
    read_idx("/nonexistent/t10k-images-idx3-ubyte.gz");
    FAIL();
  } catch (const IdxError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/t10k-images-idx3-ubyte.gz"), std::string::npos);
  }
}

}  // namespace
}  // namespace treesim::io
