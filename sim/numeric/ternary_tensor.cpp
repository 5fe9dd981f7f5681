#include "sim/numeric/ternary_tensor.h"

#include <stdexcept>

#include <fmt/format.h>

#include "sim/numeric/dpt.h"
#include "sim/numeric/ternary_lut.h"

namespace treesim::numeric {
namespace {

// The tensor as outer × line × inner, the line running along the axis.
struct Lines {
  std::uint64_t outer = 1, length = 0, inner = 1, packed = 0;
};

Lines lines_of(const std::vector<std::uint64_t>& shape, std::size_t axis) {
  if (shape.empty()) throw std::invalid_argument("a packed ternary tensor needs at least one dimension");
  if (axis >= shape.size())
    throw std::invalid_argument(
        fmt::format("axis {} is out of range for {} dimension(s)", axis, shape.size()));
  Lines l;
  for (std::size_t i = 0; i < axis; ++i) l.outer *= shape[i];
  l.length = shape[axis];
  for (std::size_t i = axis + 1; i < shape.size(); ++i) l.inner *= shape[i];
  l.packed = (l.length + kDptTritsPerByte - 1) / kDptTritsPerByte;
  return l;
}

}  // namespace

std::vector<std::uint64_t> PackedTernary::packed_shape() const {
  std::vector<std::uint64_t> s = shape;
  s[axis] = (s[axis] + kDptTritsPerByte - 1) / kDptTritsPerByte;
  return s;
}

PackedTernary pack_ternary(const std::vector<std::int8_t>& weights, const std::vector<std::uint64_t>& shape,
                           std::size_t axis) {
  const Lines l = lines_of(shape, axis);
  if (weights.size() != l.outer * l.length * l.inner)
    throw std::invalid_argument(fmt::format("{} weights do not fill a tensor of {} elements", weights.size(),
                                            l.outer * l.length * l.inner));
  for (std::size_t i = 0; i < weights.size(); ++i)
    if (weights[i] < -1 || weights[i] > 1)
      throw TernaryError(
          fmt::format("weight {} at index {} is not ternary (expected -1, 0 or 1)", weights[i], i), i);
  PackedTernary p;
  p.shape = shape;
  p.axis = axis;
  p.bytes.resize(l.outer * l.packed * l.inner);
  for (std::uint64_t o = 0; o < l.outer; ++o) {
    for (std::uint64_t b = 0; b < l.packed; ++b) {
      for (std::uint64_t in = 0; in < l.inner; ++in) {
        Trits5 t{1, 1, 1, 1, 1};  // padding: weight 0
        for (std::uint64_t s = 0; s < kDptTritsPerByte && b * kDptTritsPerByte + s < l.length; ++s)
          t[s] = static_cast<std::uint8_t>(weights[(o * l.length + b * kDptTritsPerByte + s) * l.inner + in] +
                                           1);
        p.bytes[(o * l.packed + b) * l.inner + in] = dpt_encode(t);
      }
    }
  }
  return p;
}

std::vector<std::int8_t> unpack_ternary(const PackedTernary& p, bool strict) {
  const Lines l = lines_of(p.shape, p.axis);
  if (p.bytes.size() != l.outer * l.packed * l.inner)
    throw std::invalid_argument(
        fmt::format("{} packed bytes, but the shape needs {}", p.bytes.size(), l.outer * l.packed * l.inner));
  if (strict) validate_dpt(p.bytes.data(), p.bytes.size(), "packed ternary tensor");
  const TernaryLut& lut = dpt_weight_lut();
  std::vector<std::int8_t> out(l.outer * l.length * l.inner);
  std::vector<std::int8_t> line(l.packed * kDptTritsPerByte);
  std::vector<std::uint8_t> column(l.packed);
  for (std::uint64_t o = 0; o < l.outer; ++o) {
    for (std::uint64_t in = 0; in < l.inner; ++in) {
      for (std::uint64_t b = 0; b < l.packed; ++b) column[b] = p.bytes[(o * l.packed + b) * l.inner + in];
      lut.decode(column.data(), column.size(), line.data());
      for (std::uint64_t j = 0; j < l.length; ++j) out[(o * l.length + j) * l.inner + in] = line[j];
      if (strict) {
        for (std::uint64_t j = l.length; j < line.size(); ++j) {
          if (line[j] != 0) {
            const std::size_t offset = (o * l.packed + j / kDptTritsPerByte) * l.inner + in;
            throw TernaryError(
                fmt::format("packed ternary tensor: byte 0x{:02X} at offset {} has padding trit {} "
                            "(expected 1, weight 0)",
                            p.bytes[offset], offset, line[j] + 1),
                offset);
          }
        }
      }
    }
  }
  return out;
}

}  // namespace treesim::numeric
