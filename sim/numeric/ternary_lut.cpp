#include "sim/numeric/ternary_lut.h"

#include <cstring>

namespace treesim::numeric {

TernaryLut::TernaryLut(TernaryCodec codec, bool as_weights)
    : codec_(codec), per_(numeric::trits_per_byte(codec)) {
  for (unsigned b = 0; b < 256; ++b) {
    std::uint8_t slots[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    if (!decode_chunk(codec, static_cast<std::uint8_t>(b), slots))
      for (auto& s : slots) s = 1;
    std::uint8_t row[8] = {};
    for (int i = 0; i < per_; ++i) row[i] = as_weights ? static_cast<std::uint8_t>(slots[i] - 1) : slots[i];
    std::memcpy(&rows_[b], row, 8);
  }
}

void TernaryLut::decode(const std::uint8_t* in, std::size_t size, std::uint8_t* out) const {
  if (size == 0) return;
  const std::size_t per = static_cast<std::size_t>(per_);
  std::size_t i = 0;
  // Every row but the last may spill 8 − per bytes into the next byte's slots, which that byte
  // then overwrites; four at a time so the stores pipeline.
  for (; i + 4 < size; i += 4) {
    const std::uint64_t r0 = rows_[in[i]], r1 = rows_[in[i + 1]], r2 = rows_[in[i + 2]],
                        r3 = rows_[in[i + 3]];
    std::memcpy(out + per * i, &r0, 8);
    std::memcpy(out + per * (i + 1), &r1, 8);
    std::memcpy(out + per * (i + 2), &r2, 8);
    std::memcpy(out + per * (i + 3), &r3, 8);
  }
  for (; i + 1 < size; ++i) std::memcpy(out + per * i, &rows_[in[i]], 8);
  std::memcpy(out + per * i, &rows_[in[i]], per);
}

const TernaryLut& dpt_weight_lut() {
  static const TernaryLut lut(TernaryCodec::kDpt, true);
  return lut;
}

}  // namespace treesim::numeric
