// The loader's side of the sparse kernels: which PE owns which entries, each PE's matrix in the
// encoding, and where everything sits in the LM.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "kernels/spmv/spmv.h"
#include "sim/sparse/sparse_error.h"
#include "sim/timing/cost_model.h"

namespace treesim::kernels {
namespace {

using timing::ceil_div;

std::uint64_t align8(std::uint64_t n) { return (n + 7) / 8 * 8; }

// Columns travel in groups that the encoding's column levels keep together (BSR's block columns,
// an n:m level's m), so that renumbering a PE's columns keeps every block whole.
std::uint64_t column_group(const sparse::Encoding& e) {
  std::uint64_t g = 1;
  if (e.is_ell()) return g;
  for (const sparse::Level& l : e.levels)
    if (l.expr.dim == 1 && (l.expr.op == sparse::ExprOp::kFloorDiv || l.expr.op == sparse::ExprOp::kMod))
      g = std::max(g, l.expr.k);
  return g;
}

// 2d: the level whose units' PEs form a grid row, the one with the most PEs per unit not above
// √pes (the squarest grid the tree's reduce can sum); -1 when no level has more than one PE per unit.
int grid_level(const machine::MachineConfig& m) {
  const std::uint64_t pes = m.pe_count();
  const double root = std::sqrt(static_cast<double>(pes));
  int best = -1;
  std::uint64_t best_size = 1;
  for (std::size_t l = 0; l + 1 < m.levels.size(); ++l) {
    const std::uint64_t size = pes / m.units_at(l);
    if (size > best_size && static_cast<double>(size) <= root) best = static_cast<int>(l), best_size = size;
  }
  return best;
}

}  // namespace

SparsePlacement place_sparse(const SparseProblem& p, const machine::MachineConfig& m) {
  SparsePlacement s;
  s.pes = m.pe_count();
  const std::uint64_t rows = p.a.rows, cols = p.a.cols;
  s.shares.resize(s.pes);
  // Row ranges per PE (2d: per grid row) and the owner of each entry.
  std::vector<std::uint64_t> row_starts;
  if (p.partition == sparse::Partition::k2d) {
    s.reduce_level = grid_level(m);
    s.grid_cols = s.reduce_level < 0 ? 1 : s.pes / m.units_at(static_cast<std::size_t>(s.reduce_level));
    s.grid_rows = s.pes / s.grid_cols;
  } else {
    s.grid_rows = s.pes;
  }
  if (p.partition == sparse::Partition::kNnz) {
    // Boundaries where the running count of nonzeros crosses k·total / pes (as sim/sparse/partition
    // does for stored entries).
    std::vector<std::uint64_t> per_row(rows, 0);
    for (const sparse::Triple& t : p.a.entries) ++per_row[t.row];
    const double total = static_cast<double>(p.a.entries.size());
    row_starts.assign(1, 0);
    std::uint64_t running = 0, row = 0;
    for (std::uint64_t k = 1; k < s.pes; ++k) {
      const double target = total * static_cast<double>(k) / static_cast<double>(s.pes);
      while (row < rows && static_cast<double>(running) + static_cast<double>(per_row[row]) / 2 <= target)
        running += per_row[row++];
      row_starts.push_back(std::max(row, row_starts.back()));
    }
    row_starts.push_back(rows);
  } else {
    const std::uint64_t per = ceil_div(rows, s.grid_rows);
    for (std::uint64_t g = 0; g <= s.grid_rows; ++g) row_starts.push_back(std::min(rows, g * per));
  }
  const std::uint64_t col_block = ceil_div(cols, s.grid_cols);
  auto grid_row_of = [&](std::uint64_t row) {
    return static_cast<std::uint64_t>(std::upper_bound(row_starts.begin(), row_starts.end() - 1, row) -
                                      row_starts.begin()) -
           1;
  };
  std::vector<sparse::Coo> parts(s.pes);
  for (std::uint64_t pe = 0; pe < s.pes; ++pe) {
    const std::uint64_t g = pe / s.grid_cols;
    s.shares[pe].row_begin = row_starts[g];
    s.shares[pe].row_end = row_starts[g + 1];
  }
  const std::uint64_t group = column_group(p.encoding);
  for (const sparse::Triple& t : p.a.entries) {
    const std::uint64_t pe = grid_row_of(t.row) * s.grid_cols + (s.grid_cols > 1 ? t.col / col_block : 0);
    parts[pe].entries.push_back(t);
  }
  s.storage_bytes.assign(2 * p.encoding.levels.size() + 1, 0);
  for (std::uint64_t pe = 0; pe < s.pes; ++pe) {
    PeShare& share = s.shares[pe];
    sparse::Coo& part = parts[pe];
    // The column groups this PE touches, renumbered in order.
    std::vector<std::uint64_t> groups;
    for (const sparse::Triple& t : part.entries) groups.push_back(t.col / group);
    std::sort(groups.begin(), groups.end());
    groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
    for (std::uint64_t g : groups)
      for (std::uint64_t c = g * group; c < (g + 1) * group; ++c) share.cols.push_back(c);
    for (sparse::Triple& t : part.entries) {
      const std::uint64_t g = static_cast<std::uint64_t>(
          std::lower_bound(groups.begin(), groups.end(), t.col / group) - groups.begin());
      t.col = g * group + t.col % group;
      t.row -= share.row_begin;
      share.nonzeros += t.value != 0;
    }
    part.rows = std::max<std::uint64_t>(1, share.row_end - share.row_begin);
    part.cols = std::max<std::uint64_t>(1, share.cols.size());
    try {
      share.local = sparse::build(part, p.encoding);
    } catch (const sparse::SparseError& e) {
      throw sparse::SparseError(fmt::format("PE {}'s share (rows {} to {}, numbered from 0 below): {}", pe,
                                            share.row_begin, share.row_end - 1, e.what()));
    }
    share.work = sparse::walk_work(share.local);
    s.block_bytes = std::max(s.block_bytes, sparse::block_bytes(share.local));
    s.x_rows = std::max<std::uint64_t>(s.x_rows, share.cols.size());
    s.c_rows = std::max<std::uint64_t>(s.c_rows, share.row_end - share.row_begin);
    for (std::size_t l = 0; l < p.encoding.levels.size(); ++l) {
      s.storage_bytes[2 * l] += sparse::level_array_bytes(share.local, l, true);
      s.storage_bytes[2 * l + 1] += sparse::level_array_bytes(share.local, l, false);
    }
    s.storage_bytes.back() += share.local.values.size();
  }
  // LM: A's block, x / B's rows, bias, the int32 rows (and their sums with 2d), the int8 rows.
  s.block_bytes = align8(s.block_bytes);
  s.lm_a = 0;
  s.lm_x = s.lm_a + s.block_bytes;
  s.lm_bias = s.lm_x + align8(s.x_rows * p.n);
  const std::uint64_t bias_count = p.spmm ? p.n : s.c_rows;
  s.lm_c = s.lm_bias + (p.bias.empty() ? 0 : align8(4 * bias_count));
  s.lm_sum = s.lm_c + (s.reduce_level >= 0 ? 4 * s.c_rows * p.n : 0);
  s.lm_y = s.lm_sum + 4 * s.c_rows * p.n;
  s.lm_end = s.lm_y + align8(s.c_rows * p.n);
  return s;
}

}  // namespace treesim::kernels
