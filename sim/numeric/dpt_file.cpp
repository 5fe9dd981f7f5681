#include "sim/numeric/dpt_file.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "sim/io/atomic_file.h"
#include "sim/io/input_file.h"
#include "sim/numeric/dpt.h"

namespace treesim::numeric {
namespace {

constexpr std::string_view kMagic("TSIMDPT\n", 8);
constexpr std::uint32_t kVersion = 1;
constexpr std::size_t kFixedHeader = 40;
constexpr std::uint32_t kMaxDims = 32;

void put(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
}

std::uint64_t get(std::string_view data, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(data[at + i]);
  return v;
}

}  // namespace

std::string to_dpt_file_bytes(const PackedTernary& p) {
  std::string out(kMagic);
  put(out, kVersion, 4);
  put(out, p.shape.size(), 4);
  put(out, p.axis, 4);
  put(out, 0, 4);
  put(out, p.trits_per_line(), 8);
  put(out, p.bytes.size(), 8);
  for (std::uint64_t d : p.shape) put(out, d, 8);
  out.append(reinterpret_cast<const char*>(p.bytes.data()), p.bytes.size());
  return out;
}

PackedTernary parse_dpt_file(std::string_view data, const std::string& name) {
  const auto fail = [&](const std::string& what) { throw DptFileError(name + ": " + what); };
  if (data.size() < kMagic.size() || data.substr(0, kMagic.size()) != kMagic)
    fail("not a .dpt file (expected the magic \"TSIMDPT\\n\" at the start)");
  if (data.size() < kFixedHeader)
    fail(fmt::format("truncated .dpt header ({} bytes, expected at least {})", data.size(), kFixedHeader));
  const std::uint64_t version = get(data, 8, 4), ndim = get(data, 12, 4), axis = get(data, 16, 4);
  const std::uint64_t reserved = get(data, 20, 4), trits = get(data, 24, 8), payload = get(data, 32, 8);
  if (version != kVersion) fail(fmt::format("expected .dpt version {}, got {}", kVersion, version));
  if (ndim < 1 || ndim > kMaxDims) fail(fmt::format("expected 1 to {} dimensions, got {}", kMaxDims, ndim));
  if (axis >= ndim) fail(fmt::format("expected an axis below ndim {}, got {}", ndim, axis));
  if (reserved != 0) fail(fmt::format("expected the reserved field to be 0, got {}", reserved));
  const std::size_t header = kFixedHeader + 8 * ndim;
  if (data.size() < header)
    fail(fmt::format("truncated .dpt header ({} bytes, expected {})", data.size(), header));
  PackedTernary p;
  p.axis = axis;
  for (std::uint64_t i = 0; i < ndim; ++i) p.shape.push_back(get(data, kFixedHeader + 8 * i, 8));
  // Every dimension bounded, a zero one too: unpacking sizes a line by shape[axis] and loops over the
  // others even when the tensor holds nothing, so an empty shape [0, 2^40] would ask for a 2^40-trit
  // line from a 56-byte file. No file the reader takes holds more weights than this.
  constexpr std::uint64_t kMaxWeights = io::kMaxDptFileBytes * kDptTritsPerByte;
  std::uint64_t extent = 1;
  for (std::uint64_t d : p.shape) {
    const std::uint64_t at_least_one = std::max<std::uint64_t>(d, 1);
    if (extent > kMaxWeights / at_least_one) {
      extent = kMaxWeights + 1;
      break;
    }
    extent *= at_least_one;
  }
  if (extent > kMaxWeights)
    fail(
        fmt::format("shape {} spans more than {} weights (5 a byte of the largest .dpt file, {} bytes; "
                    "a zero dimension counts as 1)",
                    fmt::join(p.shape, "×"), kMaxWeights, io::kMaxDptFileBytes));
  if (trits != p.trits_per_line())
    fail(fmt::format("trit count {} does not match shape[{}] = {}", trits, axis, p.trits_per_line()));
  std::uint64_t need = 1;
  for (std::uint64_t d : p.packed_shape()) {
    if (d != 0 && need > std::numeric_limits<std::uint64_t>::max() / d) fail("shape is too large");
    need *= d;
  }
  if (payload != need)
    fail(fmt::format("payload size {} does not match the packed shape ({} bytes)", payload, need));
  if (data.size() - header != payload)
    fail(fmt::format("{}expected {} payload bytes, got {}",
                     data.size() - header < payload ? "truncated .dpt file: " : "", payload,
                     data.size() - header));
  p.bytes.assign(reinterpret_cast<const std::uint8_t*>(data.data()) + header,
                 reinterpret_cast<const std::uint8_t*>(data.data()) + data.size());
  if (auto bad = find_unused_dpt_code(p.bytes.data(), p.bytes.size()))
    fail(fmt::format("byte 0x{:02X} at payload offset {} (file offset {}) is not a DPT code (unused code)",
                     bad->byte, bad->offset, header + bad->offset));
  return p;
}

void write_dpt_file(const std::string& path, const PackedTernary& p) {
  io::write_file_atomically(path, to_dpt_file_bytes(p));
}

PackedTernary read_dpt_file(const std::string& path) {
  std::string data;
  try {
    data = io::read_input_file(path, io::kMaxDptFileBytes, ".dpt file");
  } catch (const io::InputFileError& e) {
    throw DptFileError(e.what());
  }
  return parse_dpt_file(data, path);
}

}  // namespace treesim::numeric
