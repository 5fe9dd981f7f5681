#include "sim/sparse/pe_block.h"

#include <fmt/format.h>

#include <cstring>

#include "sim/sparse/sparse_error.h"

namespace treesim::sparse {
namespace {

std::uint64_t align8(std::uint64_t n) { return (n + 7) / 8 * 8; }

// The arrays in block order, with their element bytes: per level positions then coordinates, then
// the values (1 byte each).
struct ArraySizes {
  std::vector<std::uint64_t> counts;
  std::vector<std::uint64_t> widths;
};

ArraySizes array_sizes(const SparseMatrix& m) {
  ArraySizes a;
  const std::uint64_t pw = static_cast<std::uint64_t>(stored_bits(m.encoding.pos_width) / 8);
  const std::uint64_t cw = static_cast<std::uint64_t>(stored_bits(m.encoding.crd_width) / 8);
  for (const LevelArrays& l : m.levels) {
    a.counts.push_back(l.positions.size()), a.widths.push_back(pw);
    a.counts.push_back(l.coordinates.size()), a.widths.push_back(cw);
  }
  a.counts.push_back(m.values.size()), a.widths.push_back(1);
  return a;
}

std::uint64_t header_bytes(std::size_t levels) { return 8 * (2 + 2 * levels + 1); }

void put(std::uint8_t* at, std::uint64_t v, std::uint64_t bytes) {
  for (std::uint64_t b = 0; b < bytes; ++b) at[b] = static_cast<std::uint8_t>(v >> (8 * b));
}

std::uint64_t get(const std::uint8_t* at, std::uint64_t bytes) {
  std::uint64_t v = 0;
  for (std::uint64_t b = 0; b < bytes; ++b) v |= std::uint64_t{at[b]} << (8 * b);
  return v;
}

}  // namespace

std::uint64_t block_bytes(const SparseMatrix& m) {
  const ArraySizes a = array_sizes(m);
  std::uint64_t n = header_bytes(m.levels.size());
  for (std::size_t i = 0; i < a.counts.size(); ++i) n += align8(a.counts[i] * a.widths[i]);
  return n;
}

std::vector<std::uint8_t> pack_block(const SparseMatrix& m) {
  const ArraySizes a = array_sizes(m);
  std::vector<std::uint8_t> out(block_bytes(m), 0);
  put(out.data(), m.rows, 8);
  put(out.data() + 8, m.cols, 8);
  for (std::size_t i = 0; i < a.counts.size(); ++i) put(out.data() + 16 + 8 * i, a.counts[i], 8);
  std::uint64_t at = header_bytes(m.levels.size());
  for (std::size_t l = 0; l < m.levels.size(); ++l)
    for (int which = 0; which < 2; ++which) {
      const auto& v = which == 0 ? m.levels[l].positions : m.levels[l].coordinates;
      const std::uint64_t w = a.widths[2 * l + static_cast<std::size_t>(which)];
      for (std::size_t k = 0; k < v.size(); ++k) put(out.data() + at + k * w, v[k], w);
      at += align8(v.size() * w);
    }
  for (std::size_t k = 0; k < m.values.size(); ++k)
    out[at + k] = static_cast<std::uint8_t>(static_cast<std::int8_t>(m.values[k]));
  return out;
}

SparseMatrix unpack_block(const std::uint8_t* bytes, std::uint64_t size, const Encoding& e) {
  const std::size_t nlev = e.levels.size();
  const std::uint64_t head = header_bytes(nlev);
  if (size < head)
    throw SparseError(fmt::format("block: {} bytes cannot hold the {}-byte header", size, head));
  SparseMatrix m;
  m.encoding = e;
  m.rows = get(bytes, 8);
  m.cols = get(bytes + 8, 8);
  // Sizes from the header are checked against the bytes before anything is allocated.
  if (m.rows > kMaxStoredEntries || m.cols > kMaxStoredEntries)
    throw SparseError(fmt::format("block: a {}x{} matrix is larger than supported", m.rows, m.cols));
  m.level_sizes = level_sizes(e, m.rows, m.cols);
  m.levels.resize(nlev);
  const std::uint64_t pw = static_cast<std::uint64_t>(stored_bits(e.pos_width) / 8);
  const std::uint64_t cw = static_cast<std::uint64_t>(stored_bits(e.crd_width) / 8);
  std::uint64_t at = head;
  auto read = [&](std::size_t slot, std::uint64_t w, const char* what, std::size_t l) {
    const std::uint64_t count = get(bytes + 16 + 8 * slot, 8);
    if (count > size || count * w > size - at)
      throw SparseError(
          fmt::format("block: level {} {}: {} entries run past the block's {} bytes", l, what, count, size));
    std::vector<std::uint64_t> v(count);
    for (std::uint64_t k = 0; k < count; ++k) v[k] = get(bytes + at + k * w, w);
    at += align8(count * w);
    return v;
  };
  for (std::size_t l = 0; l < nlev; ++l) {
    m.levels[l].positions = read(2 * l, pw, "positions", l);
    m.levels[l].coordinates = read(2 * l + 1, cw, "coordinates", l);
  }
  const std::uint64_t nval = get(bytes + 16 + 8 * (2 * nlev), 8);
  if (nval > size || nval > size - at)
    throw SparseError(fmt::format("block: {} values run past the block's {} bytes", nval, size));
  m.values.resize(nval);
  for (std::uint64_t k = 0; k < nval; ++k) m.values[k] = static_cast<std::int8_t>(bytes[at + k]);
  validate(m);
  return m;
}

}  // namespace treesim::sparse
