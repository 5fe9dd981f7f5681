#include "models/pe.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "models/mac_kernel.h"
#include "sim/numeric/ternary_lut.h"
#include "sim/sparse/sparse_error.h"

namespace treesim::models {
namespace {

// Reads element i of an int8/uint8 operand as an int32.
inline std::int32_t load_8(const std::uint8_t* base, std::size_t i, core::DType t) {
  return t == core::DType::kUInt8 ? static_cast<std::int32_t>(base[i])
                                  : static_cast<std::int32_t>(static_cast<std::int8_t>(base[i]));
}

// Widens an 8-bit operand minus its zero point into int16 (|q − Z| ≤ 255 fits). One loop per
// type, so that each vectorizes.
void widen(const std::uint8_t* src, std::uint64_t count, core::DType t, std::int32_t zero,
           std::vector<std::int16_t>& out) {
  out.resize(count);
  const auto z = static_cast<std::int16_t>(zero);
  if (t == core::DType::kUInt8) {
    for (std::uint64_t i = 0; i < count; ++i) out[i] = static_cast<std::int16_t>(src[i] - z);
  } else {
    const auto* s = reinterpret_cast<const std::int8_t*>(src);
    for (std::uint64_t i = 0; i < count; ++i) out[i] = static_cast<std::int16_t>(s[i] - z);
  }
}

// C (int32, m×n, unaligned in the LM) (+)= A'·B'.
void mac_into(const std::vector<std::int16_t>& a, const std::vector<std::int16_t>& b, std::uint8_t* c_bytes,
              std::uint64_t m, std::uint64_t n, std::uint64_t k, bool accumulate,
              std::vector<std::int32_t>& c) {
  c.resize(m * n);
  if (accumulate) std::memcpy(c.data(), c_bytes, m * n * 4);
  mac_int16(a.data(), b.data(), c.data(), m, n, k, accumulate);
  std::memcpy(c_bytes, c.data(), m * n * 4);
}

}  // namespace

Pe::Pe(const sc_core::sc_module_name& name, std::uint64_t id, std::uint8_t* lm, std::uint64_t lm_bytes)
    : sc_core::sc_module(name), id_(id), lm_(lm), lm_bytes_(lm_bytes) {}

void Pe::mac(const program::Mac& op, MacScratch& s) {
  if (!s.same_a) widen(lm() + op.a, op.m * op.k, op.a_dtype, op.a_zero, s.a);
  if (!s.same_b) widen(lm() + op.b, op.k * op.n, op.b_dtype, op.b_zero, s.b);
  mac_into(s.a, s.b, lm() + op.c, op.m, op.n, op.k, op.accumulate, s.c);
}

void Pe::ternary_mac(const program::TernaryMac& op, MacScratch& s) {
  if (!s.same_a) widen(lm() + op.a, op.m * op.k, op.a_dtype, op.a_zero, s.a);
  if (!s.same_b) widen(lm() + op.w, op.k * op.n, core::DType::kInt8, 0, s.b);
  mac_into(s.a, s.b, lm() + op.c, op.m, op.n, op.k, op.accumulate, s.c);
}

std::optional<std::uint64_t> Pe::dpt_decode(const program::DptDecode& op) {
  static const numeric::TernaryLut kLuts[] = {{numeric::TernaryCodec::kDpt, true},
                                              {numeric::TernaryCodec::kBct, true},
                                              {numeric::TernaryCodec::kBase3, true}};
  const numeric::TernaryLut& lut = op.codec == numeric::TernaryCodec::kBct     ? kLuts[1]
                                   : op.codec == numeric::TernaryCodec::kBase3 ? kLuts[2]
                                                                               : kLuts[0];
  std::optional<std::uint64_t> rejected;
  const std::uint8_t* src = lm() + op.src;
  if (op.codec != numeric::TernaryCodec::kDpt) {
    std::uint8_t slots[8];
    for (std::uint64_t i = 0; i < op.bytes && !rejected; ++i)
      if (!numeric::decode_chunk(op.codec, src[i], slots)) rejected = op.src + i;
  }
  const std::uint64_t t = static_cast<std::uint64_t>(lut.trits_per_byte());
  std::vector<std::int8_t> out(op.bytes * t);
  lut.decode(src, op.bytes, out.data());
  if (op.cols > 1) {
    // Byte (r, c)'s slot s is weight row t·r + s: transpose each byte row's slots.
    std::vector<std::int8_t> rows(out.size());
    const std::uint64_t n = op.cols;
    for (std::uint64_t r = 0; r < op.bytes / n; ++r)
      for (std::uint64_t c = 0; c < n; ++c)
        for (std::uint64_t s = 0; s < t; ++s) rows[(t * r + s) * n + c] = out[(r * n + c) * t + s];
    out.swap(rows);
  }
  std::memcpy(lm() + op.dst, out.data(), out.size());
  return rejected;
}

void Pe::requant(const program::Requant& op, const numeric::OutputStage& stage) {
  const std::size_t count = op.rows * op.cols;
  const std::uint8_t* acc = lm() + op.src;
  const std::uint8_t* bias = op.has_bias ? lm() + op.bias : nullptr;
  // With a left shift every accumulator is checked against the multiply's contract, as `quant mbqm`
  // checks the same values.
  const bool check = stage.shifts_left();
  for (std::size_t i = 0; check && i < count; ++i) {
    std::uint32_t x, b = 0;
    std::memcpy(&x, acc + 4 * i, 4);
    if (bias) std::memcpy(&b, bias + 4 * (i % op.cols), 4);
    const auto biased = static_cast<std::int32_t>(x + b);
    const numeric::QuantizedMultiplier& m = stage.multiplier_for(i % op.cols);
    if (auto why = numeric::mbqm_contract_violation(biased, m.multiplier, m.shift, stage.rounding))
      throw numeric::QuantError(
          fmt::format("accumulator [{}, {}] = {}: {}", i / op.cols, i % op.cols, biased, *why));
  }
  // Requantized straight from the LM, unless the output overwrites what it reads.
  const auto overlaps = [&](std::uint64_t at, std::uint64_t bytes) {
    return at < op.dst + count && op.dst < at + bytes;
  };
  std::vector<std::uint8_t> inputs;
  if (overlaps(op.src, count * 4) || (bias && overlaps(op.bias, op.cols * 4))) {
    inputs.assign(acc, acc + count * 4);
    if (bias) inputs.insert(inputs.end(), bias, bias + op.cols * 4);
    acc = inputs.data();
    bias = bias ? inputs.data() + count * 4 : nullptr;
  }
  numeric::requantize_block_bytes(acc, bias, op.rows, op.cols, stage, lm() + op.dst);
}

sparse::WalkWork Pe::sparse_mac(const program::SparseMac& op) {
  const sparse::SparseMatrix a = sparse::unpack_block(lm() + op.a, op.a_bytes, op.encoding);
  if (a.rows > op.c_rows || a.cols > op.b_rows)
    throw sparse::SparseError(fmt::format("its {}x{} block does not fit B's {} rows and C's {} rows", a.rows,
                                          a.cols, op.b_rows, op.c_rows));
  std::vector<std::int32_t> c(op.c_rows * op.n, 0);
  const sparse::WalkWork w =
      sparse::multiply_block(a, reinterpret_cast<const std::int8_t*>(lm() + op.b), op.n, op.b_zero, c.data());
  if (!c.empty()) std::memcpy(lm() + op.c, c.data(), c.size() * 4);
  return w;
}

void Pe::copy(const program::Copy& op) { std::memmove(lm() + op.dst, lm() + op.src, op.bytes); }

}  // namespace treesim::models
