// The operands' layouts under a plan: the tiles the program streams (values, built without text),
// the whole operands (what --layout-a/-b/-c take, as text), and a network layer's activations left
// in the LMs (text).
#include <algorithm>

#include <fmt/format.h>

#include "kernels/gemm/gemm.h"
#include "sim/layout/matrix.h"
#include "sim/layout/parse.h"
#include "sim/timing/cost_model.h"

namespace treesim::kernels {
namespace {

using timing::ceil_div;

using Dim = GemmDim;

// level_splits, or each level pinned to its unit 0 (K's levels in C's layouts, where the reduced sums
// are).
std::vector<layout::LevelSplit> splits(const Assignment& a, Dim d, const machine::MachineConfig& m,
                                       bool pinned = false) {
  std::vector<layout::LevelSplit> out = level_splits(a, d, m);
  if (pinned)
    for (auto& s : out) s.units = 1;
  return out;
}

// "16_L2B, 8_L1B, " (a shared level's digit with its stride), or each pinned to unit 0: "1_MAB, ".
std::string level_prefix(const Assignment& a, Dim d, const machine::MachineConfig& m, bool pinned = false) {
  std::string s;
  for (const auto& l : splits(a, d, m, pinned))
    s += l.stride ? fmt::format("{}_{}:{}, ", l.units, l.level, l.stride)
                  : fmt::format("{}_{}, ", l.units, l.level);
  return s;
}

// "; B@[4_L2B:1]": the copies as a layout's broadcast items ("" without any).
std::string copies_suffix(const Assignment& a, Dim over, const machine::MachineConfig& m) {
  std::string s;
  for (const auto& c : shared_copies(a, over, m))
    s += fmt::format("{}{}_{}:{}", s.empty() ? "" : ", ", c.units, c.level, c.stride);
  return s.empty() ? s : "; B@[" + s + "]";
}

std::string pad_prefix(std::uint64_t rows, std::uint64_t cols, std::uint64_t padded_rows,
                       std::uint64_t padded_cols) {
  if (rows == padded_rows && cols == padded_cols) return "";
  return fmt::format("({},{})/", rows, cols);
}

std::vector<layout::LevelSplit> operator+(std::vector<layout::LevelSplit> a,
                                          const std::vector<layout::LevelSplit>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// Every operand layout of the kernel is one of layout::matrix's (sim/layout/matrix.h).
layout::TensorLayout matrix_of(std::uint64_t rows, std::uint64_t cols,
                               std::vector<layout::LevelSplit> row_levels, std::uint64_t r,
                               std::vector<layout::LevelSplit> col_levels, std::uint64_t c,
                               std::vector<layout::LevelSplit> copies, const machine::MachineConfig& m,
                               std::uint64_t pieces = 1, std::uint64_t words = 1) {
  layout::MatrixSpec spec;
  spec.rows = rows, spec.cols = cols;
  spec.row_levels = std::move(row_levels), spec.col_levels = std::move(col_levels);
  spec.copies = std::move(copies);
  spec.r = r, spec.c = c, spec.pieces = pieces, spec.words = words;
  return layout::matrix(spec, layout::level_names(m));
}

// "n:stride, " when n > 1: a block index of the resident layouts.
std::string resident_blocks(std::uint64_t n, std::uint64_t stride) {
  return n > 1 ? fmt::format("{}:{}, ", n, stride) : "";
}
std::string lane_sub_axis(std::uint64_t w) { return w > 1 ? fmt::format(", {}_W", w) : ""; }

}  // namespace

std::vector<layout::LevelSplit> level_splits(const Assignment& a, GemmDim d,
                                             const machine::MachineConfig& m) {
  const std::vector<Assignment::Use>& uses = d == GemmDim::kM ? a.m : d == GemmDim::kN ? a.n : a.k;
  std::vector<layout::LevelSplit> out;
  for (const auto& u : uses) {
    layout::LevelSplit s{m.levels[u.level].name, u.size, 0};
    if (d == GemmDim::kM && units_at(a.n, u.level)) s.stride = units_at(a.n, u.level);
    if (d == GemmDim::kN && units_at(a.m, u.level)) s.stride = 1;
    out.push_back(s);
  }
  return out;
}

std::vector<layout::LevelSplit> shared_copies(const Assignment& a, GemmDim over,
                                              const machine::MachineConfig& m) {
  std::vector<layout::LevelSplit> out;
  const bool n = over == GemmDim::kN;
  for (const auto& u : n ? a.n : a.m)
    if (units_at(n ? a.m : a.n, u.level))
      out.push_back({m.levels[u.level].name, u.size, n ? 1 : units_at(a.n, u.level)});
  return out;
}

// Tile layouts for a block of `rows`×`cols` logical elements of each operand. The plan makes kt and
// tn multiples of the LM word, so every tile row fills whole addresses.
layout::TensorLayout tile_layout_a(const QgemmPlan& p, const machine::MachineConfig& m, std::uint64_t rows,
                                   std::uint64_t cols) {
  const Assignment& a = p.assignment;
  return matrix_of(rows, cols, splits(a, Dim::kM, m), p.tm / p.row_pieces, splits(a, Dim::kK, m), p.kt,
                   shared_copies(a, Dim::kN, m), m, p.row_pieces, lm_words(m));
}
layout::TensorLayout tile_layout_b(const QgemmPlan& p, const machine::MachineConfig& m, std::uint64_t rows,
                                   std::uint64_t cols) {
  const Assignment& a = p.assignment;
  return matrix_of(rows, cols, splits(a, Dim::kK, m), p.kt, splits(a, Dim::kN, m), p.tn,
                   shared_copies(a, Dim::kM, m), m, /*pieces=*/1, lm_words(m));
}
layout::TensorLayout tile_layout_c(const QgemmPlan& p, const machine::MachineConfig& m, std::uint64_t rows,
                                   std::uint64_t cols) {
  return tile_layout_c_pieces(p, m, p.row_pieces, rows, cols);
}
layout::TensorLayout tile_layout_c_pieces(const QgemmPlan& p, const machine::MachineConfig& m,
                                          std::uint64_t pieces, std::uint64_t rows, std::uint64_t cols) {
  const Assignment& a = p.assignment;
  return matrix_of(rows, cols, splits(a, Dim::kM, m) + splits(a, Dim::kK, m, /*pinned=*/true),
                   p.tm / p.row_pieces, splits(a, Dim::kN, m), p.tn, {}, m, pieces, lm_words(m));
}
layout::TensorLayout tile_layout_vector(const QgemmPlan& p, const machine::MachineConfig& m,
                                        std::uint64_t cols) {
  return layout::row_vector(cols, splits(p.assignment, Dim::kN, m), p.tn, lm_words(m), layout::level_names(m),
                            shared_copies(p.assignment, Dim::kM, m));
}

// The whole operands: a unit's share is its tiles of every pass and step together.
std::string whole_layout_a(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m) {
  const Assignment& a = p.assignment;
  return layout::to_string(matrix_of(prob.m, prob.k, splits(a, Dim::kM, m), p.tm * p.m_passes,
                                     splits(a, Dim::kK, m), ceil_div(prob.k, p.pk),
                                     shared_copies(a, Dim::kN, m), m));
}

std::string whole_layout_b(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m) {
  const Assignment& a = p.assignment;
  return layout::to_string(matrix_of(prob.k, prob.n, splits(a, Dim::kK, m), ceil_div(prob.k, p.pk),
                                     splits(a, Dim::kN, m), p.tn * p.n_passes, shared_copies(a, Dim::kM, m),
                                     m));
}

std::string whole_layout_c(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m) {
  const Assignment& a = p.assignment;
  return layout::to_string(matrix_of(prob.m, prob.n,
                                     splits(a, Dim::kM, m) + splits(a, Dim::kK, m, /*pinned=*/true),
                                     p.tm * p.m_passes, splits(a, Dim::kN, m), p.tn * p.n_passes, {}, m));
}

std::uint64_t m_blocks(const QgemmProblem& prob, const QgemmPlan& p) {
  return std::min(p.m_passes, ceil_div(prob.m, p.pm * p.tm));
}
std::uint64_t n_blocks(const QgemmProblem& prob, const QgemmPlan& p) {
  return std::min(p.n_passes, ceil_div(prob.n, p.pn * p.tn));
}
std::uint64_t resident_bytes_a(const QgemmProblem& prob, const QgemmPlan& p) {
  return m_blocks(prob, p) * p.steps * p.tm * p.kt;
}
std::uint64_t resident_a_tile(const QgemmPlan& p, std::uint64_t m0, std::uint64_t step) {
  const std::uint64_t m_block = m0 / (p.pm * p.tm);
  return *p.a_resident + (m_block * p.steps + step) * p.tm * p.kt;  // resident_layout_a's order
}
std::uint64_t resident_bytes_c(const QgemmProblem& prob, const QgemmPlan& p) {
  return m_blocks(prob, p) * n_blocks(prob, p) * p.tm * p.tn;
}

std::string resident_layout_a(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m) {
  const Assignment& a = p.assignment;
  const std::uint64_t w = lm_words(m), mb = m_blocks(prob, p), tile = p.tm * p.kt / w;
  const std::uint64_t tr = p.tm / p.row_pieces;
  return pad_prefix(prob.m, prob.k, mb * p.pm * p.tm, p.steps * p.pk * p.kt) +
         fmt::format("(({}{}{}{}:{}), ({}{}{}:1{}){})", resident_blocks(mb, p.steps * tile),
                     resident_blocks(p.row_pieces, tr * p.kt / w), level_prefix(a, Dim::kM, m), tr, p.kt / w,
                     resident_blocks(p.steps, tile), level_prefix(a, Dim::kK, m), p.kt / w, lane_sub_axis(w),
                     copies_suffix(a, Dim::kN, m));
}

std::string resident_layout_c(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m) {
  const Assignment& a = p.assignment;
  const std::uint64_t w = lm_words(m), mb = m_blocks(prob, p), nb = n_blocks(prob, p);
  const std::uint64_t tile = p.tm * p.tn / w, tr = p.tm / p.row_pieces;
  // The passes' order: N blocks outer, or with A kept M blocks outer.
  const bool m_outer = p.stationary == Stationary::kA;
  return pad_prefix(prob.m, prob.n, mb * p.pm * p.tm, nb * p.pn * p.tn) +
         fmt::format("(({}{}{}{}{}:{}), ({}{}{}:1{}))", resident_blocks(mb, m_outer ? nb * tile : tile),
                     resident_blocks(p.row_pieces, tr * p.tn / w), level_prefix(a, Dim::kM, m),
                     level_prefix(a, Dim::kK, m, /*pinned=*/true), tr, p.tn / w,
                     resident_blocks(nb, m_outer ? tile : mb * tile), level_prefix(a, Dim::kN, m), p.tn / w,
                     lane_sub_axis(w));
}

}  // namespace treesim::kernels
