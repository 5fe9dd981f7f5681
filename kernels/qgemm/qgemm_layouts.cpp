// The operands' layouts under a plan: the tiles the program streams (values, built without text),
// the whole operands (what --layout-a/-b/-c take, as text), and a network layer's activations left
// in the LMs (text).
#include <algorithm>

#include <fmt/format.h>

#include "kernels/qgemm/qgemm.h"
#include "sim/layout/matrix.h"
#include "sim/layout/parse.h"
#include "sim/timing/cost_model.h"

namespace treesim::kernels {
namespace {

using timing::ceil_div;

// "16_L2B, 8_L1B, " for a list of level uses.
std::string level_prefix(const std::vector<Assignment::Use>& uses, const machine::MachineConfig& m) {
  std::string s;
  for (const auto& u : uses) s += fmt::format("{}_{}, ", u.size, m.levels[u.level].name);
  return s;
}

// "1_MAB, 1_PE, ": K levels pinned to their unit 0, where the reduced sums are.
std::string pinned_prefix(const std::vector<Assignment::Use>& uses, const machine::MachineConfig& m) {
  std::string s;
  for (const auto& u : uses) s += fmt::format("1_{}, ", m.levels[u.level].name);
  return s;
}

std::string pad_prefix(std::uint64_t rows, std::uint64_t cols, std::uint64_t padded_rows,
                       std::uint64_t padded_cols) {
  if (rows == padded_rows && cols == padded_cols) return "";
  return fmt::format("({},{})/", rows, cols);
}

// The levels of `uses` with their units, or each pinned to its unit 0 (K's levels in C's layouts,
// where the reduced sums are).
std::vector<layout::LevelSplit> splits(const std::vector<Assignment::Use>& uses,
                                       const machine::MachineConfig& m, bool pinned = false) {
  std::vector<layout::LevelSplit> out;
  for (const auto& u : uses) out.push_back({m.levels[u.level].name, pinned ? 1 : u.size});
  return out;
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
                               const machine::MachineConfig& m, std::uint64_t pieces = 1,
                               std::uint64_t words = 1) {
  layout::MatrixSpec spec;
  spec.rows = rows, spec.cols = cols;
  spec.row_levels = std::move(row_levels), spec.col_levels = std::move(col_levels);
  spec.r = r, spec.c = c, spec.pieces = pieces, spec.words = words;
  return layout::matrix(spec, layout::level_names(m));
}

// "n:stride, " when n > 1: a block index of the resident layouts.
std::string resident_blocks(std::uint64_t n, std::uint64_t stride) {
  return n > 1 ? fmt::format("{}:{}, ", n, stride) : "";
}
std::string lane_sub_axis(std::uint64_t w) { return w > 1 ? fmt::format(", {}_W", w) : ""; }

}  // namespace

// Tile layouts for a block of `rows`×`cols` logical elements of each operand. The plan makes kt and
// tn multiples of the LM word, so every tile row fills whole addresses.
layout::TensorLayout tile_layout_a(const QgemmPlan& p, const machine::MachineConfig& m, std::uint64_t rows,
                                   std::uint64_t cols) {
  const Assignment& a = p.assignment;
  return matrix_of(rows, cols, splits(a.m, m), p.tm / p.row_pieces, splits(a.k, m), p.kt, m, p.row_pieces,
                   lm_words(m));
}
layout::TensorLayout tile_layout_b(const QgemmPlan& p, const machine::MachineConfig& m, std::uint64_t rows,
                                   std::uint64_t cols) {
  const Assignment& a = p.assignment;
  return matrix_of(rows, cols, splits(a.k, m), p.kt, splits(a.n, m), p.tn, m, /*pieces=*/1, lm_words(m));
}
layout::TensorLayout tile_layout_c(const QgemmPlan& p, const machine::MachineConfig& m, std::uint64_t rows,
                                   std::uint64_t cols) {
  return tile_layout_c_pieces(p, m, p.row_pieces, rows, cols);
}
layout::TensorLayout tile_layout_c_pieces(const QgemmPlan& p, const machine::MachineConfig& m,
                                          std::uint64_t pieces, std::uint64_t rows, std::uint64_t cols) {
  const Assignment& a = p.assignment;
  return matrix_of(rows, cols, splits(a.m, m) + splits(a.k, m, /*pinned=*/true), p.tm / p.row_pieces,
                   splits(a.n, m), p.tn, m, pieces, lm_words(m));
}
layout::TensorLayout tile_layout_vector(const QgemmPlan& p, const machine::MachineConfig& m,
                                        std::uint64_t cols) {
  return layout::row_vector(cols, splits(p.assignment.n, m), p.tn, lm_words(m), layout::level_names(m));
}

// The whole operands: a unit's share is its tiles of every pass and step together.
std::string whole_layout_a(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m) {
  const Assignment& a = p.assignment;
  return layout::to_string(matrix_of(prob.m, prob.k, splits(a.m, m), p.tm * p.m_passes, splits(a.k, m),
                                     ceil_div(prob.k, p.pk), m));
}

std::string whole_layout_b(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m) {
  const Assignment& a = p.assignment;
  return layout::to_string(matrix_of(prob.k, prob.n, splits(a.k, m), ceil_div(prob.k, p.pk), splits(a.n, m),
                                     p.tn * p.n_passes, m));
}

std::string whole_layout_c(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m) {
  const Assignment& a = p.assignment;
  return layout::to_string(matrix_of(prob.m, prob.n, splits(a.m, m) + splits(a.k, m, /*pinned=*/true),
                                     p.tm * p.m_passes, splits(a.n, m), p.tn * p.n_passes, m));
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
         fmt::format("(({}{}{}{}:{}), ({}{}{}:1{}))", resident_blocks(mb, p.steps * tile),
                     resident_blocks(p.row_pieces, tr * p.kt / w), level_prefix(a.m, m), tr, p.kt / w,
                     resident_blocks(p.steps, tile), level_prefix(a.k, m), p.kt / w, lane_sub_axis(w));
}

std::string resident_layout_c(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m) {
  const Assignment& a = p.assignment;
  const std::uint64_t w = lm_words(m), mb = m_blocks(prob, p), nb = n_blocks(prob, p);
  const std::uint64_t tile = p.tm * p.tn / w, tr = p.tm / p.row_pieces;
  // The passes' order: N blocks outer, or with A kept M blocks outer.
  const bool m_outer = p.stationary == Stationary::kA;
  return pad_prefix(prob.m, prob.n, mb * p.pm * p.tm, nb * p.pn * p.tn) +
         fmt::format("(({}{}{}{}{}:{}), ({}{}{}:1{}))", resident_blocks(mb, m_outer ? nb * tile : tile),
                     resident_blocks(p.row_pieces, tr * p.tn / w), level_prefix(a.m, m),
                     pinned_prefix(a.k, m), tr, p.tn / w, resident_blocks(nb, m_outer ? tile : mb * tile),
                     level_prefix(a.n, m), p.tn / w, lane_sub_axis(w));
}

}  // namespace treesim::kernels
