// Fast bulk decoding for the simulator's functional path: a 256-row table built once from a codec's
// bit-logic decoder, each row the byte's decoded slots in 8 bytes, so a byte costs one load and one
// unaligned 8-byte store (rows overlap in the output; the last byte writes only its own slots).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "sim/numeric/ternary_codec.h"

namespace treesim::numeric {

class TernaryLut {
 public:
  // `as_weights`: rows hold weights trit − 1 in {−1, 0, 1} (as int8); otherwise trits 0..2.
  // Bytes the codec rejects decode to trit 1 (weight 0): validate untrusted input first.
  TernaryLut(TernaryCodec codec, bool as_weights);

  TernaryCodec codec() const { return codec_; }
  int trits_per_byte() const { return per_; }

  // Decodes `size` bytes into size · trits_per_byte() output bytes.
  void decode(const std::uint8_t* in, std::size_t size, std::uint8_t* out) const;
  void decode(const std::uint8_t* in, std::size_t size, std::int8_t* out) const {
    decode(in, size, reinterpret_cast<std::uint8_t*>(out));
  }

 private:
  TernaryCodec codec_;
  int per_;
  std::array<std::uint64_t, 256> rows_{};
};

// The DPT weight table, built on first use and never changed.
const TernaryLut& dpt_weight_lut();

// Decodes `size` DPT bytes into 5·size weights in {−1, 0, 1}, unused codes as the hardware does.
inline void dpt_decode_weights(const std::uint8_t* in, std::size_t size, std::int8_t* out) {
  dpt_weight_lut().decode(in, size, out);
}

}  // namespace treesim::numeric
