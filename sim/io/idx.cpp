#include "sim/io/idx.h"

#include <zlib.h>

#include "sim/io/input_file.h"

namespace treesim::io {
namespace {

constexpr std::uint8_t kUnsignedByte = 0x08;

std::uint32_t big_endian32(std::string_view data, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<std::uint8_t>(data[at + i]);
  return v;
}

}  // namespace

IdxArray parse_idx(std::string_view data, const std::string& name) {
  if (data.size() < 4)
    throw IdxError(name + ": truncated IDX file: " + std::to_string(data.size()) +
                   " bytes, expected at least a 4-byte magic");
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(data[i]); };
  if (byte(0) != 0 || byte(1) != 0 || byte(3) == 0)
    throw IdxError(name + ": not an IDX file: expected a magic 00 00 TYPE RANK (RANK ≥ 1), got " +
                   std::to_string(byte(0)) + " " + std::to_string(byte(1)) + " " + std::to_string(byte(2)) +
                   " " + std::to_string(byte(3)));
  if (byte(2) != kUnsignedByte)
    throw IdxError(name + ": IDX element type " + std::to_string(byte(2)) +
                   " is not supported: expected 8 (unsigned byte)");
  const std::size_t rank = byte(3);
  const std::size_t header = 4 + 4 * rank;
  if (data.size() < header)
    throw IdxError(name + ": truncated IDX file: " + std::to_string(data.size()) + " bytes, expected a " +
                   std::to_string(header) + "-byte header for rank " + std::to_string(rank));
  IdxArray a;
  std::uint64_t count = 1;
  for (std::size_t d = 0; d < rank; ++d) {
    const std::uint64_t dim = big_endian32(data, 4 + 4 * d);
    a.shape.push_back(dim);
    // Each dimension is below 2^32 and the product is checked against the bytes at hand, so it
    // cannot overflow before it is compared.
    count *= dim;
    if (count > data.size() - header)
      throw IdxError(name + ": truncated IDX file: its dimensions need more than the " +
                     std::to_string(data.size() - header) + " bytes of data it has");
  }
  if (count != data.size() - header)
    throw IdxError(name + ": IDX file has " + std::to_string(data.size() - header - count) +
                   " bytes past the " + std::to_string(count) + " elements its dimensions give");
  a.values.assign(data.begin() + static_cast<std::ptrdiff_t>(header), data.end());
  return a;
}

std::string gunzip_if_gzipped(std::string_view data, const std::string& name) {
  if (data.size() < 2 || static_cast<std::uint8_t>(data[0]) != 0x1f ||
      static_cast<std::uint8_t>(data[1]) != 0x8b)
    return std::string(data);
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) throw IdxError(name + ": cannot start inflating the gzip stream");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  std::string out;
  char buffer[1 << 16];
  int status = Z_OK;
  while (status != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    status = inflate(&z, Z_NO_FLUSH);
    if (status != Z_OK && status != Z_STREAM_END) {
      inflateEnd(&z);
      throw IdxError(name + (status == Z_BUF_ERROR ? ": truncated gzip stream"
                                                   : ": corrupt gzip stream (" +
                                                         std::string(z.msg ? z.msg : "zlib error") + ")"));
    }
    out.append(buffer, sizeof buffer - z.avail_out);
    if (out.size() > kMaxIdxBytes) {
      inflateEnd(&z);
      throw IdxError(name + ": inflates past " + std::to_string(kMaxIdxBytes) + " bytes, the IDX cap");
    }
  }
  inflateEnd(&z);
  return out;
}

IdxArray read_idx(const std::string& path) {
  try {
    const std::string data = read_input_file(path, kMaxIdxBytes, "IDX file");
    return parse_idx(gunzip_if_gzipped(data, path), path);
  } catch (const InputFileError& e) {
    throw IdxError(e.what());
  }
}

}  // namespace treesim::io
