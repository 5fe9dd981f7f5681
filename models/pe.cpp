#include "models/pe.h"

#include <algorithm>
#include <cstring>

#include "sim/numeric/ternary_lut.h"

namespace treesim::models {
namespace {

// Reads element i of an int8/uint8 operand as an int32.
inline std::int32_t load_8(const std::uint8_t* base, std::size_t i, program::DType t) {
  return t == program::DType::kUInt8 ? static_cast<std::int32_t>(base[i])
                                     : static_cast<std::int32_t>(static_cast<std::int8_t>(base[i]));
}

// Widens an 8-bit operand minus its zero point into int16 (|q − Z| ≤ 510 fits).
void widen(const std::uint8_t* src, std::size_t n, program::DType t, std::int32_t zero, std::int16_t* out) {
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::int16_t>(load_8(src, i, t) - zero);
}

// C (int32, row-major m×n, unaligned in the LM) (+)= A'·B' with A' m×k, B' k×n in int16.
void mac_core(const std::int16_t* a, const std::int16_t* b, std::uint8_t* c_bytes, std::uint64_t m,
              std::uint64_t n, std::uint64_t k, bool accumulate) {
  std::vector<std::int32_t> row(n);
  for (std::uint64_t i = 0; i < m; ++i) {
    std::uint8_t* c_row = c_bytes + i * n * 4;
    if (accumulate)
      std::memcpy(row.data(), c_row, n * 4);
    else
      std::fill(row.begin(), row.end(), 0);
    for (std::uint64_t kk = 0; kk < k; ++kk) {
      const std::int32_t av = a[i * k + kk];
      const std::int16_t* b_row = b + kk * n;
      // |a·b| ≤ 510² and sums of up to 2^13 such terms stay well inside int32 for LM-sized tiles;
      // wrap like the hardware's int32 accumulator otherwise (unsigned arithmetic, no UB).
      for (std::uint64_t j = 0; j < n; ++j)
        row[j] = static_cast<std::int32_t>(static_cast<std::uint32_t>(row[j]) +
                                           static_cast<std::uint32_t>(av * b_row[j]));
    }
    std::memcpy(c_row, row.data(), n * 4);
  }
}

}  // namespace

Pe::Pe(const sc_core::sc_module_name& name, std::uint64_t id, std::uint64_t lm_bytes)
    : sc_core::sc_module(name), id_(id), lm_(lm_bytes) {}

void Pe::reset() { std::fill(lm_.begin(), lm_.end(), 0); }

void Pe::mac(const program::Mac& op) {
  std::vector<std::int16_t> a(op.m * op.k), b(op.k * op.n);
  widen(lm() + op.a, a.size(), op.a_dtype, op.a_zero, a.data());
  widen(lm() + op.b, b.size(), op.b_dtype, op.b_zero, b.data());
  mac_core(a.data(), b.data(), lm() + op.c, op.m, op.n, op.k, op.accumulate);
}

void Pe::ternary_mac(const program::TernaryMac& op) {
  std::vector<std::int16_t> a(op.m * op.k), w(op.k * op.n);
  widen(lm() + op.a, a.size(), op.a_dtype, op.a_zero, a.data());
  widen(lm() + op.w, w.size(), program::DType::kInt8, 0, w.data());
  mac_core(a.data(), w.data(), lm() + op.c, op.m, op.n, op.k, op.accumulate);
}

void Pe::dpt_decode(const program::DptDecode& op) {
  std::vector<std::int8_t> out(op.bytes * 5);
  numeric::dpt_decode_weights(lm() + op.src, op.bytes, out.data());
  std::memcpy(lm() + op.dst, out.data(), out.size());
}

void Pe::requant(const program::Requant& op, const numeric::OutputStage& stage) {
  const std::size_t count = op.rows * op.cols;
  std::vector<std::int32_t> acc(count), bias(op.has_bias ? op.cols : 0), out(count);
  std::memcpy(acc.data(), lm() + op.src, count * 4);
  if (op.has_bias) {
    std::memcpy(bias.data(), lm() + op.bias, op.cols * 4);
    for (std::size_t i = 0; i < count; ++i)
      acc[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(acc[i]) +
                                         static_cast<std::uint32_t>(bias[i % op.cols]));
  }
  numeric::requantize_block(acc.data(), op.rows, op.cols, stage, out.data());
  std::uint8_t* dst = lm() + op.dst;
  for (std::size_t i = 0; i < count; ++i) dst[i] = static_cast<std::uint8_t>(out[i] & 0xff);
}

void Pe::copy(const program::Copy& op) { std::memmove(lm() + op.dst, lm() + op.src, op.bytes); }

}  // namespace treesim::models
