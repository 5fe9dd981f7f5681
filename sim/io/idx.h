// IDX files (LeCun's MNIST format, also Fashion-MNIST's): a 4-byte magic (0, 0, type, rank), the
// rank dimensions as big-endian uint32, then the elements in C order, big-endian. Files may be
// gzipped (as Debian's dataset-fashion-mnist ships them): a gzip stream is inflated first. Every
// problem is an IdxError whose one-line message names the file and what was expected.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace treesim::io {

// The cap of an IDX file after inflating: the 60,000 training images are 47 MB.
inline constexpr std::uint64_t kMaxIdxBytes = std::uint64_t{1} << 30;  // 1 GiB

// An IDX array of unsigned bytes (type 0x08), the only element type of the MNIST family.
struct IdxArray {
  std::vector<std::uint64_t> shape;
  std::vector<std::uint8_t> values;  // C order
};

class IdxError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses the bytes of a plain (not gzipped) IDX file; `name` starts every error message.
IdxArray parse_idx(std::string_view data, const std::string& name);
// Inflates `data` when it starts with the gzip magic, else returns it as it is. Throws IdxError
// for a corrupt or truncated stream, or one that inflates past kMaxIdxBytes.
std::string gunzip_if_gzipped(std::string_view data, const std::string& name);
// Reads a plain or gzipped IDX file.
IdxArray read_idx(const std::string& path);

}  // namespace treesim::io
