// The tile-level instruction set. A program is data: a list of tensors in DRAM and a list of
// instructions that every PE executes in lock-step (one instruction stream). Addresses are LM byte
// offsets, the same in every PE. No timing here: durations come from the machine file.
//
// Fields are typed: layouts are parsed TensorLayout values, collectives name a level by its index
// in the machine, element types are core::DType and rounding is numeric::Rounding. Text exists
// only in program_text (parser and printer) and in messages.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include "sim/core/dtype.h"
#include "sim/core/vector_op.h"
#include "sim/layout/tensor_layout.h"
#include "sim/numeric/fixed_point.h"
#include "sim/numeric/quantized_add.h"
#include "sim/numeric/ternary_codec.h"
#include "sim/program/row_list.h"
#include "sim/sparse/encoding.h"

namespace treesim::program {

using core::DType;

// A level of the machine: an index into MachineConfig::levels (root first), or the board.
struct Level {
  static constexpr int kBoard = -1;
  int index = kBoard;
  bool is_board() const { return index == kBoard; }
  bool operator==(const Level& o) const { return index == o.index; }
};

// A tensor in the board's DRAM, row-major.
struct TensorDecl {
  std::string name;
  std::vector<std::uint64_t> shape;
  DType dtype = DType::kInt8;
  std::uint64_t bytes() const;  // saturates at UINT64_MAX; the checker refuses such tensors
  std::uint64_t elements() const;
  auto tie() const { return std::tie(name, shape, dtype); }
};

// Overlapping windows of a rank-4 NHWC tensor, seen as a matrix (im2col, as a convolution reads its
// input): row (n, oh, ow) and column (c, r, s), each row-major over [N, out_h, out_w] and
// [channels, r, s] (channel-major, so that a block of whole channels reads each input element once),
// is the tensor's element
//   (n, oh·stride_h + r·dilation_h − pad_top, ow·stride_w + s·dilation_w − pad_left, c0 + c),
// or the load's `pad` where that image row or column falls outside the tensor.
struct Window {
  std::uint64_t r = 1, s = 1;
  std::uint64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  std::uint64_t pad_top = 0, pad_left = 0;
  std::uint64_t out_h = 1, out_w = 1;
  std::uint64_t c0 = 0, channels = 1;
  auto tie() const {
    return std::tie(r, s, stride_h, stride_w, dilation_h, dilation_w, pad_top, pad_left, out_h, out_w, c0,
                    channels);
  }
  bool operator==(const Window& o) const { return tie() == o.tie(); }
};

// DRAM → LMs: places tensor `tensor`, or its block of `shape` at `offset` when given, by `layout`
// starting at LM byte offset `lm`. Padding slots get the value `pad` (e.g. the operand's zero
// point, so that padded terms of a quantized product vanish). With a window, the tensor is read as
// the window's matrix and `offset`, `shape` and the layout are of that matrix: DRAM reads each
// distinct element the block's windows touch once, and the links carry every slot the layout
// fills (overlapping windows are duplicate bytes there).
struct Load {
  std::string tensor;
  layout::TensorLayout layout;
  std::uint64_t lm = 0;
  std::vector<std::uint64_t> offset;  // empty: the whole tensor
  std::vector<std::uint64_t> shape;   // the block's shape; empty: the whole tensor
  std::int32_t pad = 0;
  std::optional<Window> window;
  // A windowed load expanded at the PEs (halo.h): each PE receives the distinct elements its slots
  // read (its halo patch), kept from this LM offset, and its copy unit makes the slots from them.
  // None: the loader expands the windows (im2col) and the links carry every slot.
  std::optional<std::uint64_t> halo;
  // Set: the tensor read as this shape (the same elements, row-major: a reshape) — `offset`, `shape`
  // and the window are of it. One program's kernels can then share a DRAM tensor that each sees by
  // its own shape (a convolution's output matrix as the next one's NHWC input).
  std::vector<std::uint64_t> view;
  // Set: a row gather (row_list.h). The block is of the matrix whose row i is tensor row rows[i] (a
  // rank-2 tensor or view) or padding (`pad`); each unit receives the distinct tensor rows stored
  // below it, once, and DRAM reads each distinct row once: a sparse kernel's x rows, multicast.
  RowList rows;
  auto tie() const { return std::tie(tensor, layout, lm, offset, shape, pad, window, halo, view, rows); }
};

// LMs → DRAM: gathers tensor `tensor` (or its block of `shape` at `offset`), one replica of each
// element, from its layout at `lm`.
struct Store {
  std::string tensor;
  layout::TensorLayout layout;
  std::uint64_t lm = 0;
  std::vector<std::uint64_t> offset;
  std::vector<std::uint64_t> shape;
  // Set: a row scatter (row_list.h), the inverse of Load::rows: row i of the gathered block goes to
  // tensor row rows[i]; padding rows stay behind. No tensor row may be written twice.
  RowList rows;
  auto tie() const { return std::tie(tensor, layout, lm, offset, shape, rows); }
};

// LMs → LMs on the tree: tensor `tensor` (its shape and type; DRAM is not touched), held by layout
// `from` at LM byte offset `src`, is placed by layout `to` at `dst`. Every destination slot takes
// its element from the nearest copy (layout::plan_conversion: through the lowest common level, a
// broadcast where `to` replicates); padding slots of `to` get `pad`. The two LM ranges must not
// overlap.
//
// With a window, `to` places the block [offset, offset + shape) of the window's matrix of the
// tensor (read as `view`, an NHWC shape, when the tensor's own shape is not one): every slot takes
// the element its window reads from the nearest copy, each element crossing a link once however
// many slots below it read it (window_convert.h), and slots outside the image get `pad`. A
// convolution reads the one before's output in the LMs so.
struct Convert {
  std::string tensor;
  layout::TensorLayout from, to;
  std::uint64_t src = 0, dst = 0;
  std::int32_t pad = 0;
  std::optional<Window> window;
  std::vector<std::uint64_t> view;           // with a window: the tensor as NHWC (empty: its shape)
  std::vector<std::uint64_t> offset, shape;  // with a window: the block of its matrix
  auto tie() const { return std::tie(tensor, from, to, src, dst, pad, window, view, offset, shape); }
};

// int8 MAC on LM tiles in every PE: C[m×n] (int32) (+)= Σ_k (A[m×k] − a_zero)(B[k×n] − b_zero).
// A, B, C row-major at LM byte offsets a, b, c.
struct Mac {
  std::uint64_t a = 0, b = 0, c = 0;
  std::uint64_t m = 0, n = 0, k = 0;
  DType a_dtype = DType::kInt8, b_dtype = DType::kInt8;
  std::int32_t a_zero = 0, b_zero = 0;
  bool accumulate = false;
  auto tie() const { return std::tie(a, b, c, m, n, k, a_dtype, b_dtype, a_zero, b_zero, accumulate); }
};

// Ternary decode in every PE: `bytes` packed bytes at src, a row-major (bytes/cols)×cols matrix,
// → int8 weights −1/0/+1 (trit − 1) at dst, a row-major (t·bytes/cols)×cols matrix, where t is
// the codec's trits per byte (5 for DPT and base 3, 4 for BCT): slot s of byte (r, c) is weight
// (t·r + s, c). With cols = 1 that is t·bytes weights in stream order. Each byte row holds t rows of
// a weight matrix packed along its rows (K), as the tgemm kernel streams W. DPT and BCT run on the
// DPT decoder's datapath, base 3 on the base-3 decoder's.
struct DptDecode {
  std::uint64_t src = 0, dst = 0, bytes = 0;
  std::uint64_t cols = 1;
  numeric::TernaryCodec codec = numeric::TernaryCodec::kDpt;
  auto tie() const { return std::tie(src, dst, bytes, cols, codec); }
};

// Ternary MAC: C[m×n] (int32) (+)= Σ_k (A[m×k] − a_zero) · W[k×n], W int8 in {−1, 0, +1}.
struct TernaryMac {
  std::uint64_t a = 0, w = 0, c = 0;
  std::uint64_t m = 0, n = 0, k = 0;
  DType a_dtype = DType::kInt8;
  std::int32_t a_zero = 0;
  bool accumulate = false;
  auto tie() const { return std::tie(a, w, c, m, n, k, a_dtype, a_zero, accumulate); }
};

// Sparse × dense in every PE: C[c_rows×n] (int32) = A · (B − b_zero), where each PE walks its own A,
// a block at LM offset a (at most a_bytes: sim/sparse/pe_block.h, the arrays at the encoding's
// widths), and B is int8 b_rows×n at b. A's coordinates index B's rows and C's rows. A PE's work
// depends on its data, which a timing-only run does not have: `entries` and `segments` give each
// PE's walk (sim/sparse/pe_block.h: WalkWork), as the loader that placed the blocks knows it; a
// functional run checks them against the walk.
struct SparseMac {
  sparse::Encoding encoding;
  std::uint64_t a = 0, a_bytes = 0;
  std::uint64_t b = 0, b_rows = 0, n = 1;
  std::int32_t b_zero = 0;
  std::uint64_t c = 0, c_rows = 0;
  // The PEs that walk, increasing; empty: every PE. A PE not listed does nothing this step (a pass
  // in which only some PEs hold a block of A).
  std::vector<std::uint64_t> pes;
  std::vector<std::uint64_t> entries, segments;  // per walking PE, in PE order
  // Optional: four per walking PE (PE-major), the coordinates its walk steps through at dense, compressed,
  // singleton and n:m levels (sim/sparse/walk.h); needed on a machine that charges per level step
  // (pe.sparse_mac.level_items).
  std::vector<std::uint64_t> visits;
  bool accumulate = false;  // C += A·(B − b_zero): a row block's later column tiles
  // The walking PEs' count, and the PE of walker i (of `pe_count` PEs when pes is empty).
  std::uint64_t walkers(std::uint64_t pe_count) const { return pes.empty() ? pe_count : pes.size(); }
  std::uint64_t pe_of(std::size_t i) const { return pes.empty() ? i : pes[i]; }
  // Walker i's visits.
  std::array<std::uint64_t, 4> visits_of(std::size_t i) const {
    std::array<std::uint64_t, 4> v{};
    if (visits.size() >= 4 * (i + 1))
      for (std::size_t k = 0; k < 4; ++k) v[k] = visits[4 * i + k];
    return v;
  }
  auto tie() const {
    return std::tie(encoding, a, a_bytes, b, b_rows, n, b_zero, c, c_rows, pes, entries, segments, visits,
                    accumulate);
  }
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
  numeric::Rounding rounding = numeric::Rounding::kDouble;
  auto tie() const {
    return std::tie(src, dst, rows, cols, has_bias, bias, multiplier, shift, params_in_lm, multiplier_lm,
                    shift_lm, out_zero, out_dtype, act_min, act_max, rounding);
  }
};

// Local copy inside every PE's LM.
struct Copy {
  std::uint64_t src = 0, dst = 0, bytes = 0;
  auto tie() const { return std::tie(src, dst, bytes); }
};

// Window maximum in every PE (max pooling), on the copy unit: `rows`×`channels` values at dst, each the
// largest of `taps` consecutive values at src (row r's channel c: src[(r·channels + c)·taps + t]), as
// a windowed load's channel-major columns hold a window's taps. int8 or uint8.
struct PoolMax {
  std::uint64_t src = 0, dst = 0, rows = 0, channels = 0, taps = 0;
  DType dtype = DType::kInt8;
  auto tie() const { return std::tie(src, dst, rows, channels, taps, dtype); }
};

// Window sum in every PE (average pooling's numerator), on the copy unit: `rows`×`channels` int32 at
// dst, each Σ (x − zero) over `taps` consecutive int8/uint8 values at src, laid out as PoolMax's.
// A requant then divides (its multiplier holds scale / count).
struct PoolSum {
  std::uint64_t src = 0, dst = 0, rows = 0, channels = 0, taps = 0;
  DType dtype = DType::kInt8;
  std::int32_t zero = 0;
  auto tie() const { return std::tie(src, dst, rows, channels, taps, dtype, zero); }
};

// Quantized element-wise add in every PE, on the requant unit: `count` codes at a and at b (their
// types and zero points in `stage`) → `count` out_dtype codes at dst, each
// numeric::quantized_add (ONNX Runtime's QLinearAdd in float32). dst may be a or b (in place).
struct QuantAdd {
  std::uint64_t a = 0, b = 0, dst = 0, count = 0;
  numeric::AddStage stage;
  auto tie() const { return std::tie(a, b, dst, count, stage); }
};

// The vector unit in every PE (pe.vector): the IEEE binary32 operation `op` (round to nearest
// even; sim/numeric/vector_math.h defines each) over a `rows`×`cols` float32 matrix at a,
// row-major. An element-wise operation writes rows×cols values at dst; a row reduction (row_sum,
// row_max) writes one value per row, taking the row left to right. A binary operation's second
// operand is b read as `b_form`: a whole matrix, one value per row (a row statistic), one per column
// (gamma, beta), or the immediate `imm` (b unused). dst may be a (in place), or b when b is a whole
// matrix; otherwise apart from them.
enum class VectorOperand : std::uint8_t { kMatrix, kPerRow, kPerCol, kImmediate };
struct Vector {
  core::VectorOp op = core::VectorOp::kAdd;
  std::uint64_t a = 0, b = 0, dst = 0, rows = 1, cols = 0;
  VectorOperand b_form = VectorOperand::kMatrix;
  float imm = 0;
  // The values it reads at a and writes at dst (per PE), and the float32 values b holds.
  std::uint64_t values() const { return rows * cols; }
  std::uint64_t out_values() const { return core::is_row_reduction(op) ? rows : rows * cols; }
  std::uint64_t b_values() const;
  auto tie() const { return std::tie(op, a, b, dst, rows, cols, b_form, imm); }
};

// Tree collectives at a level L: every unit U of level L works on the PEs of its subtree.
// Broadcast: the subtree's first PE sends `bytes` at src to dst of every PE of the subtree.
struct Broadcast {
  Level level;
  std::uint64_t src = 0, dst = 0, bytes = 0;
  auto tie() const { return std::tie(level, src, dst, bytes); }
};
// Scatter: the subtree's first PE holds one block of `bytes` per PE at src (in PE order); PE j of
// the subtree receives block j at dst.
struct Scatter {
  Level level;
  std::uint64_t src = 0, dst = 0, bytes = 0;
  auto tie() const { return std::tie(level, src, dst, bytes); }
};
// Gather: the inverse of Scatter: every PE's block at src lands, in PE order, at dst of the
// subtree's first PE.
struct Gather {
  Level level;
  std::uint64_t src = 0, dst = 0, bytes = 0;
  auto tie() const { return std::tie(level, src, dst, bytes); }
};
// Reduce: `op` (sum or max) over all PEs of the subtree of `count` values at src, each of `dtype`
// (int32, summed wrapping, or float32, summed in binary32 in PE order from the subtree's first PE:
// ((x0 + x1) + x2) + ...), lands at dst of the subtree's first PE. Levels with `reduce: true`
// combine on the way up; others forward every block. A softmax row spread over PEs takes its max
// and sum this way.
enum class ReduceOp : std::uint8_t { kSum, kMax };
struct Reduce {
  Level level;
  std::uint64_t src = 0, dst = 0, count = 0;
  ReduceOp op = ReduceOp::kSum;
  DType dtype = DType::kInt32;
  std::uint64_t bytes() const { return count * 4; }  // both types are 4 bytes a value
  auto tie() const { return std::tie(level, src, dst, count, op, dtype); }
};

// Representation equality for every instruction struct (and TensorDecl): field by field.
template <typename T, typename = decltype(std::declval<const T&>().tie())>
bool operator==(const T& a, const T& b) {
  return a.tie() == b.tie();
}
template <typename T, typename = decltype(std::declval<const T&>().tie())>
bool operator!=(const T& a, const T& b) {
  return !(a == b);
}

using Instr = std::variant<Load, Store, Mac, DptDecode, TernaryMac, Requant, Copy, Broadcast, Scatter, Gather,
                           Reduce, SparseMac, Convert, PoolMax, PoolSum, QuantAdd, Vector>;

// The tree collectives: they work per subtree of a level, not on every PE alike.
template <typename T>
inline constexpr bool kCollective = std::is_same_v<T, Broadcast> || std::is_same_v<T, Scatter> ||
                                    std::is_same_v<T, Gather> || std::is_same_v<T, Reduce>;
inline bool is_collective(const Instr& instr) {
  return std::visit([](const auto& op) { return kCollective<std::decay_t<decltype(op)>>; }, instr);
}

// The instruction's kind as written in program text and in reports ("load", "mac", ...).
const char* kind_name(const Instr& instr);
// All kind names, in the order of the variant.
const std::vector<std::string>& kind_names();

struct Program {
  std::vector<TensorDecl> tensors;
  std::vector<Instr> instrs;
  const TensorDecl* find_tensor(const std::string& name) const;
  bool operator==(const Program& o) const { return tensors == o.tensors && instrs == o.instrs; }
  bool operator!=(const Program& o) const { return !(*this == o); }
};

}  // namespace treesim::program
