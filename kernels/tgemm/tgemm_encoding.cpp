// W's encodings in DRAM: packed along K, a byte row per t rows of weights.
#include "kernels/tgemm/tgemm.h"

#include <algorithm>

#include "sim/timing/cost_model.h"

namespace treesim::kernels {

const char* to_string(WeightEncoding e) {
  static constexpr const char* kNames[] = {"dpt", "bct", "base3", "int8"};  // in the enum's order
  return kNames[static_cast<std::size_t>(e)];
}

std::uint64_t weights_per_byte(WeightEncoding e) {
  return e == WeightEncoding::kInt8 ? 1 : static_cast<std::uint64_t>(numeric::trits_per_byte(codec_of(e)));
}

numeric::TernaryCodec codec_of(WeightEncoding e) {
  return e == WeightEncoding::kBct     ? numeric::TernaryCodec::kBct
         : e == WeightEncoding::kBase3 ? numeric::TernaryCodec::kBase3
                                       : numeric::TernaryCodec::kDpt;
}

void set_weight_encoding(QgemmProblem& p, WeightEncoding e) {
  p.ternary = true;
  p.b_dtype = core::DType::kInt8;
  p.b_zero = 0;
  p.w_trits_per_byte = e == WeightEncoding::kInt8 ? 0 : weights_per_byte(e);
  p.w_base3 = e == WeightEncoding::kBase3;
}

WeightEncoding weight_encoding(const QgemmProblem& p) {
  if (p.w_trits_per_byte == 0) return WeightEncoding::kInt8;
  if (p.w_base3) return WeightEncoding::kBase3;
  return p.w_trits_per_byte == weights_per_byte(WeightEncoding::kBct) ? WeightEncoding::kBct
                                                                      : WeightEncoding::kDpt;
}

std::uint8_t zero_weights_byte(WeightEncoding e) {
  if (e == WeightEncoding::kInt8) return 0;
  const std::uint8_t ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  return numeric::encode_chunk(codec_of(e), ones);
}

std::uint64_t weight_bytes(std::uint64_t k, std::uint64_t n, WeightEncoding e) {
  return timing::ceil_div(k, weights_per_byte(e)) * n;
}

std::vector<std::uint8_t> pack_weights(const std::vector<std::int8_t>& w, std::uint64_t k, std::uint64_t n,
                                       WeightEncoding e) {
  if (e == WeightEncoding::kInt8) return std::vector<std::uint8_t>(w.begin(), w.end());
  const std::uint64_t t = weights_per_byte(e), rows = timing::ceil_div(k, t);
  const numeric::TernaryCodec codec = codec_of(e);
  std::vector<std::uint8_t> out(rows * n);
  std::uint8_t slots[8];
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t c = 0; c < n; ++c) {
      for (std::uint64_t s = 0; s < t; ++s) {
        const std::uint64_t row = t * r + s;
        slots[s] = static_cast<std::uint8_t>(row < k ? w[row * n + c] + 1 : 1);
      }
      out[r * n + c] = numeric::encode_chunk(codec, slots);
    }
  return out;
}

std::vector<std::int8_t> unpack_weights(const std::vector<std::uint8_t>& bytes, std::uint64_t k,
                                        std::uint64_t n, WeightEncoding e) {
  if (e == WeightEncoding::kInt8) return std::vector<std::int8_t>(bytes.begin(), bytes.end());
  const std::uint64_t t = weights_per_byte(e), rows = timing::ceil_div(k, t);
  std::vector<std::int8_t> w(k * n);
  // Column c's weights are one trit stream across byte rows: decode it with the plain codec.
  std::vector<std::uint8_t> column(rows);
  for (std::uint64_t c = 0; c < n; ++c) {
    for (std::uint64_t r = 0; r < rows; ++r) column[r] = bytes[r * n + c];
    std::vector<std::uint8_t> trits;
    try {
      trits = numeric::decode_trits(codec_of(e), column.data(), rows, k);
    } catch (const numeric::TernaryError& err) {
      // The byte offset in W's row-major bytes.
      throw numeric::TernaryError(err.what(), err.index() * n + c);
    }
    for (std::uint64_t row = 0; row < k; ++row) w[row * n + c] = static_cast<std::int8_t>(trits[row] - 1);
  }
  return w;
}

}  // namespace treesim::kernels
