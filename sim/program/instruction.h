// The tile-level instruction set. A program is data: a list of tensors in DRAM and a list of
// instructions that every PE executes in lock-step (one instruction stream). Addresses are LM byte
// offsets, the same in every PE. No timing here: durations come from the machine file.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace treesim::program {

enum class DType { kInt8, kUInt8, kInt32 };

std::size_t dtype_bytes(DType t);
const char* dtype_name(DType t);  // "int8", "uint8", "int32"
bool parse_dtype(const std::string& text, DType& out);

// A tensor in the board's DRAM, row-major.
struct TensorDecl {
  std::string name;
  std::vector<std::uint64_t> shape;
  DType dtype = DType::kInt8;
  std::uint64_t bytes() const;
  std::uint64_t elements() const;
};

// DRAM → LMs: places tensor `tensor`, or its block of `shape` at `offset` when given, by `layout`
// starting at LM byte offset `lm`. Padding slots get the value `pad` (e.g. the operand's zero
// point, so that padded terms of a quantized product vanish).
struct Load {
  std::string tensor;
  std::string layout;
  std::uint64_t lm = 0;
  std::vector<std::uint64_t> offset;  // empty: the whole tensor
  std::vector<std::uint64_t> shape;   // the block's shape; empty: the whole tensor
  std::int32_t pad = 0;
};

// LMs → DRAM: gathers tensor `tensor` (or its block of `shape` at `offset`), one replica of each
// element, from its layout at `lm`.
struct Store {
  std::string tensor;
  std::string layout;
  std::uint64_t lm = 0;
  std::vector<std::uint64_t> offset;
  std::vector<std::uint64_t> shape;
};

// int8 MAC on LM tiles in every PE: C[m×n] (int32) (+)= Σ_k (A[m×k] − a_zero)(B[k×n] − b_zero).
// A, B, C row-major at LM byte offsets a, b, c.
struct Mac {
  std::uint64_t a = 0, b = 0, c = 0;
  std::uint64_t m = 0, n = 0, k = 0;
  DType a_dtype = DType::kInt8, b_dtype = DType::kInt8;
  std::int32_t a_zero = 0, b_zero = 0;
  bool accumulate = false;
};

// DPT decode in every PE: `bytes` packed bytes at src → 5·bytes int8 ternary weights at dst.
struct DptDecode {
  std::uint64_t src = 0, dst = 0, bytes = 0;
};

// Ternary MAC: C[m×n] (int32) (+)= Σ_k (A[m×k] − a_zero) · W[k×n], W int8 in {−1, 0, +1}.
struct TernaryMac {
  std::uint64_t a = 0, w = 0, c = 0;
  std::uint64_t m = 0, n = 0, k = 0;
  DType a_dtype = DType::kInt8;
  std::int32_t a_zero = 0;
  bool accumulate = false;
};

// Requantization in every PE of `rows`×`cols` int32 at src (+ int32 bias per column at `bias`
// when has_bias) → out_dtype at dst. One multiplier/shift (per tensor) or one per column, given in
// the instruction, or — per channel with different channels in every PE — read from each PE's LM
// (`cols` int32 multipliers at multiplier_lm and `cols` int32 shifts at shift_lm).
struct Requant {
  std::uint64_t src = 0, dst = 0, rows = 0, cols = 0;
  bool has_bias = false;
  std::uint64_t bias = 0;
  std::vector<std::int32_t> multiplier;
  std::vector<std::int32_t> shift;
  bool params_in_lm = false;
  std::uint64_t multiplier_lm = 0, shift_lm = 0;
  std::int32_t out_zero = 0;
  DType out_dtype = DType::kInt8;
  std::int32_t act_min = -128, act_max = 127;
  std::string rounding = "double";  // double | single | double_upward (see the numerics notes)
};

// Local copy inside every PE's LM.
struct Copy {
  std::uint64_t src = 0, dst = 0, bytes = 0;
};

// Tree collectives at a level L: every unit U of level L works on the PEs of its subtree.
// Broadcast: the subtree's first PE sends `bytes` at src to dst of every PE of the subtree.
struct Broadcast {
  std::string level;
  std::uint64_t src = 0, dst = 0, bytes = 0;
};
// Scatter: the subtree's first PE holds one block of `bytes` per PE at src (in PE order); PE j of
// the subtree receives block j at dst.
struct Scatter {
  std::string level;
  std::uint64_t src = 0, dst = 0, bytes = 0;
};
// Gather: the inverse of Scatter: every PE's block at src lands, in PE order, at dst of the
// subtree's first PE.
struct Gather {
  std::string level;
  std::uint64_t src = 0, dst = 0, bytes = 0;
};
// Reduce: the int32 sum of `count` values at src over all PEs of the subtree lands at dst of the
// subtree's first PE. Levels with `reduce: true` sum on the way up; others forward every block.
struct Reduce {
  std::string level;
  std::uint64_t src = 0, dst = 0, count = 0;
};

using Instr =
    std::variant<Load, Store, Mac, DptDecode, TernaryMac, Requant, Copy, Broadcast, Scatter, Gather, Reduce>;

// The instruction's kind as written in program text and in reports ("load", "mac", ...).
const char* kind_name(const Instr& instr);
// All kind names, in the order of the variant.
const std::vector<std::string>& kind_names();

struct Program {
  std::vector<TensorDecl> tensors;
  std::vector<Instr> instrs;
  const TensorDecl* find_tensor(const std::string& name) const;
};

}  // namespace treesim::program
