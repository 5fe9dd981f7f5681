// Ternary weight tensors packed with DPT. A weight w in {−1, 0, +1} is stored as the trit w + 1.
// Along the packing axis each line of d = shape[axis] weights becomes ceil(d/5) bytes (weight
// j → byte j/5, slot j%5, slot 0 least significant); the tail is padded with trit 1 (weight 0).
// The bytes are in C order over the packed shape: shape with shape[axis] replaced by ceil(d/5).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace treesim::numeric {

struct PackedTernary {
  std::vector<std::uint64_t> shape;  // the unpacked tensor's shape (at least one dimension)
  std::size_t axis = 0;              // the packing axis
  std::vector<std::uint8_t> bytes;   // DPT codes in C order over packed_shape()

  std::uint64_t trits_per_line() const { return shape[axis]; }  // the trit count carried in metadata
  std::vector<std::uint64_t> packed_shape() const;
};

// Packs row-major `weights` of `shape` along `axis`. Throws TernaryError (index = element index) for
// a weight outside −1..1, and std::invalid_argument for an empty shape, an axis out of range or a
// size mismatch.
PackedTernary pack_ternary(const std::vector<std::int8_t>& weights, const std::vector<std::uint64_t>& shape,
                           std::size_t axis);

// Unpacks to row-major weights of p.shape. With `strict`, an unused DPT code (TernaryError with the
// byte offset in p.bytes) or a padding trit other than 1 is an error; otherwise bytes decode as the
// hardware does. Throws std::invalid_argument when p.bytes does not match the shape.
std::vector<std::int8_t> unpack_ternary(const PackedTernary& p, bool strict = true);

}  // namespace treesim::numeric
