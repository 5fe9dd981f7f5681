// The operands' layouts under a plan, as layout text: the tiles the program streams, the whole
// operands (what --layout-a/-b/-c take), and a network layer's activations left in the LMs.
#include <algorithm>

#include <fmt/format.h>

#include "kernels/qgemm/qgemm.h"
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

// A rows×cols matrix whose rows split over `row_levels` and then r per unit, and whose columns over
// `col_levels` and then c per unit, each unit holding its r×c block row-major; a pad prefix pads the
// matrix to row_units·r × col_units·c when it is smaller. Every operand layout of the kernel is one.
// With `words` elements per LM address (c a multiple of it), a row's c elements fill c/words
// addresses lane by lane (`words_W` innermost), so that the block's bytes are contiguous and
// row-major, which is how the MAC and requant units read their operands. Without the lanes each
// element would take a whole address, leaving words − 1 empty slots after it.
// With `outer` > 1 the rows are `outer` such matrices one after the other, each unit holding its
// blocks one after the other (the row pieces of a pass).
std::string matrix_layout(std::uint64_t rows, std::uint64_t cols, const std::string& row_levels,
                          std::uint64_t row_units, std::uint64_t r, const std::string& col_levels,
                          std::uint64_t col_units, std::uint64_t c, std::uint64_t outer = 1,
                          std::uint64_t words = 1) {
  const std::string prefix = pad_prefix(rows, cols, outer * row_units * r, col_units * c);
  const std::string pieces = outer > 1 ? fmt::format("{}:{}, ", outer, r * c / words) : "";
  if (words == 1)
    return prefix + fmt::format("(({}{}{}:{}), ({}{}:1))", pieces, row_levels, r, c, col_levels, c);
  return prefix + fmt::format("(({}{}{}:{}), ({}{}:1, {}_W))", pieces, row_levels, r, c / words, col_levels,
                              c / words, words);
}

// "n:stride, " when n > 1: a block index of the resident layouts.
std::string resident_blocks(std::uint64_t n, std::uint64_t stride) {
  return n > 1 ? fmt::format("{}:{}, ", n, stride) : "";
}
std::string lane_sub_axis(std::uint64_t w) { return w > 1 ? fmt::format(", {}_W", w) : ""; }

}  // namespace

// Tile layouts for a block of `rows`×`cols` logical elements of each operand. The plan makes kt and
// tn multiples of the LM word, so every tile row fills whole addresses.
std::string tile_layout_a(const QgemmPlan& p, const machine::MachineConfig& m, std::uint64_t rows,
                          std::uint64_t cols) {
  const Assignment& a = p.assignment;
  return matrix_layout(rows, cols, level_prefix(a.m, m), p.pm, p.tm / p.row_pieces, level_prefix(a.k, m),
                       p.pk, p.kt, p.row_pieces, lm_words(m));
}
std::string tile_layout_b(const QgemmPlan& p, const machine::MachineConfig& m, std::uint64_t rows,
                          std::uint64_t cols) {
  const Assignment& a = p.assignment;
  return matrix_layout(rows, cols, level_prefix(a.k, m), p.pk, p.kt, level_prefix(a.n, m), p.pn, p.tn,
                       /*outer=*/1, lm_words(m));
}
std::string tile_layout_c(const QgemmPlan& p, const machine::MachineConfig& m, std::uint64_t rows,
                          std::uint64_t cols) {
  return tile_layout_c_pieces(p, m, p.row_pieces, rows, cols);
}
std::string tile_layout_c_pieces(const QgemmPlan& p, const machine::MachineConfig& m, std::uint64_t pieces,
                                 std::uint64_t rows, std::uint64_t cols) {
  const Assignment& a = p.assignment;
  return matrix_layout(rows, cols, level_prefix(a.m, m) + pinned_prefix(a.k, m), p.pm, p.tm / p.row_pieces,
                       level_prefix(a.n, m), p.pn, p.tn, pieces, lm_words(m));
}
std::string tile_layout_vector(const QgemmPlan& p, const machine::MachineConfig& m, std::uint64_t cols) {
  std::string pad = cols == p.pn * p.tn ? "" : fmt::format("({})/", cols);
  const std::uint64_t w = lm_words(m);
  if (w == 1) return pad + fmt::format("(({}{}:1))", level_prefix(p.assignment.n, m), p.tn);
  return pad + fmt::format("(({}{}:1, {}_W))", level_prefix(p.assignment.n, m), p.tn / w, w);
}

// The whole operands: a unit's share is its tiles of every pass and step together.
std::string whole_layout_a(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m) {
  const Assignment& a = p.assignment;
  return matrix_layout(prob.m, prob.k, level_prefix(a.m, m), p.pm, p.tm * p.m_passes, level_prefix(a.k, m),
                       p.pk, ceil_div(prob.k, p.pk));
}

std::string whole_layout_b(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m) {
  const Assignment& a = p.assignment;
  return matrix_layout(prob.k, prob.n, level_prefix(a.k, m), p.pk, ceil_div(prob.k, p.pk),
                       level_prefix(a.n, m), p.pn, p.tn * p.n_passes);
}

std::string whole_layout_c(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m) {
  const Assignment& a = p.assignment;
  return matrix_layout(prob.m, prob.n, level_prefix(a.m, m) + pinned_prefix(a.k, m), p.pm, p.tm * p.m_passes,
                       level_prefix(a.n, m), p.pn, p.tn * p.n_passes);
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
  return pad_prefix(prob.m, prob.n, mb * p.pm * p.tm, nb * p.pn * p.tn) +
         fmt::format("(({}{}{}{}{}:{}), ({}{}{}:1{}))", resident_blocks(mb, tile),
                     resident_blocks(p.row_pieces, tr * p.tn / w), level_prefix(a.m, m),
                     pinned_prefix(a.k, m), tr, p.tn / w, resident_blocks(nb, mb * tile),
                     level_prefix(a.n, m), p.tn / w, lane_sub_axis(w));
}

}  // namespace treesim::kernels
