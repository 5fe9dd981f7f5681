// How A splits into the PEs' shares: by rows (sim/sparse/partition.h) and with 2d by column ranges
// too, each share's columns renumbered over those it touches.
#include <cmath>

#include <fmt/format.h>

#include "kernels/spmv/spmv_shares.h"
#include "sim/sparse/sparse_error.h"

namespace treesim::kernels {

std::uint64_t dim_group(const sparse::Encoding& e, std::size_t dim) {
  std::uint64_t g = 1;
  if (e.is_ell()) return g;
  for (const sparse::Level& l : e.levels)
    if (l.expr.dim == dim && (l.expr.op == sparse::ExprOp::kFloorDiv || l.expr.op == sparse::ExprOp::kMod))
      g = std::max(g, l.expr.k);
  return g;
}

int sparse_grid_level(const machine::MachineConfig& m) {
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

void for_each_share(const ARows& a_rows, const sparse::Encoding& e, sparse::Partition kind, std::uint64_t pes,
                    std::uint64_t parts, std::uint64_t grid_cols, std::uint64_t col_tiles,
                    const std::function<void(std::uint64_t, std::uint64_t, PeShare&)>& f,
                    bool heaviest_first) {
  const sparse::Coo& a = a_rows.a;
  pes = std::max<std::uint64_t>(pes, 1);
  parts = std::max<std::uint64_t>(parts, 1);
  col_tiles = std::max<std::uint64_t>(col_tiles, 1);
  const std::uint64_t group = dim_group(e, 1);
  if (parts > UINT32_MAX)  // entries carry their part's number in 32 bits
    throw sparse::SparseError(fmt::format("{} parts (PEs × row blocks) are more than the {} supported", parts,
                                          std::uint64_t{UINT32_MAX}));
  const PartGrid grid(a, e, kind, parts, grid_cols, a_rows.entries);
  // The entries part by part: part q's are [start[q], start[q + 1]) of `in_parts`. Parts of whole
  // rows over entries in row order (as files are read) are slices of A's; otherwise they are
  // bucketed into one array (counted, not grown), in A's order within each part either way.
  std::vector<std::uint64_t> start(parts + 1, 0);
  std::vector<sparse::Triple> bucketed;
  const bool slices = grid.grid_cols() == 1 && a_rows.in_order;
  if (slices) {
    for (std::uint64_t q = 0; q < grid.parts(); ++q) {
      start[q + 1] = start[q];
      for (std::uint64_t r = grid.row_begin(q); r < grid.row_end(q); ++r) start[q + 1] += a_rows.entries[r];
    }
    for (std::uint64_t q = grid.parts(); q < parts; ++q) start[q + 1] = start[q];
  } else {
    std::vector<std::uint32_t> part_of(a.entries.size());
    for (std::size_t i = 0; i < a.entries.size(); ++i) {
      part_of[i] = static_cast<std::uint32_t>(grid.part_of(a.entries[i]));
      ++start[part_of[i] + 1];
    }
    for (std::size_t q = 0; q < parts; ++q) start[q + 1] += start[q];
    bucketed.resize(a.entries.size());
    std::vector<std::uint64_t> next(start.begin(), start.end() - 1);
    for (std::size_t i = 0; i < a.entries.size(); ++i) bucketed[next[part_of[i]]++] = a.entries[i];
  }
  const sparse::Triple* in_parts = slices ? a.entries.data() : bucketed.data();
  std::uint64_t heaviest = 0;
  for (std::size_t q = 0; q < parts; ++q) heaviest = std::max(heaviest, start[q + 1] - start[q]);
  // Column tiles: a part's column groups, in order, cut so that each tile holds at most `cap`
  // entries (a group with more stays whole in its own tile), so the heaviest part falls into about
  // `col_tiles` tiles, and a row block into as many passes as its heaviest part's ⌈entries / cap⌉.
  // A lighter part is cut into about as many tiles as its row block has passes, so that its loads
  // spread over them, but into no tile smaller than eight times its rows (a tile's positions would
  // weigh too much beside its entries): a part of few entries, or in a row block of one pass,
  // stays whole.
  const std::uint64_t cap = (heaviest + col_tiles - 1) / col_tiles;
  std::vector<std::uint64_t> block_tiles(parts / pes + 1, 1);
  for (std::uint64_t q = 0; q < parts; ++q)
    block_tiles[q / pes] =
        std::max(block_tiles[q / pes], (start[q + 1] - start[q] + cap - 1) / std::max<std::uint64_t>(cap, 1));
  std::vector<std::uint64_t> in_group((a.cols + group - 1) / group, 0), touched, tile_start;
  std::vector<sparse::Triple> by_tile;
  ColumnRenumbering renumber(a.cols, group);
  std::uint64_t stamp = 0;
  sparse::Coo piece;
  const auto emit = [&](std::uint64_t part, std::uint64_t tile, const sparse::Triple* first,
                        const sparse::Triple* last) {
    PeShare share;
    share.pe = part % pes;
    share.row_begin = grid.row_begin(part);
    share.row_end = grid.row_end(part);
    piece.entries.assign(first, last);
    share.cols = renumber.apply(piece.entries, stamp++);
    for (sparse::Triple& t : piece.entries) {
      t.row -= share.row_begin;
      share.nonzeros += t.value != 0;
    }
    // A PE past the last row (fewer rows than PEs) holds an empty 0 × 0 matrix.
    piece.rows = share.row_end - share.row_begin;
    piece.cols = share.cols.size();
    try {
      share.local = sparse::build(piece, e);
    } catch (const sparse::SparseError& err) {
      throw sparse::SparseError(
          fmt::format("PE {}'s share (rows {} to {}{}, numbered from 0 below): {}", share.pe, share.row_begin,
                      share.row_end - 1, tile > 0 ? fmt::format(", column tile {}", tile) : "", err.what()));
    }
    share.work = sparse::walk_work(share.local);
    f(part, tile, share);
  };
  // Parts in order, or (for a caller that stops at the first share too large) heaviest first.
  std::vector<std::uint64_t> order(parts);
  for (std::uint64_t q = 0; q < parts; ++q) order[q] = q;
  if (heaviest_first)
    std::stable_sort(order.begin(), order.end(), [&](std::uint64_t x, std::uint64_t y) {
      return start[x + 1] - start[x] > start[y + 1] - start[y];
    });
  for (const std::uint64_t part : order) {
    const sparse::Triple* first = in_parts + start[part];
    const sparse::Triple* last = in_parts + start[part + 1];
    const std::uint64_t n = static_cast<std::uint64_t>(last - first),
                        rows = grid.row_end(part) - grid.row_begin(part);
    const std::uint64_t part_cap = std::min(
        cap,
        std::max<std::uint64_t>({(n + block_tiles[part / pes] - 1) / block_tiles[part / pes], 8 * rows, 1}));
    if (n <= part_cap) {
      emit(part, 0, first, last);
      continue;
    }
    touched.clear();
    for (const sparse::Triple* t = first; t != last; ++t)
      if (const std::uint64_t g = group_of(t->col, group); in_group[g]++ == 0) touched.push_back(g);
    if (touched.size() > in_group.size() / 16) {  // most groups: read them off in order, no sort
      touched.clear();
      for (std::uint64_t g = 0; g < in_group.size(); ++g)
        if (in_group[g] > 0) touched.push_back(g);
    } else {
      std::sort(touched.begin(), touched.end());
    }
    // Each touched group's tile, kept in in_group from here on; tile_start counts the tiles' entries.
    tile_start.assign(1, 0);
    std::uint64_t held = 0;
    for (std::uint64_t g : touched) {
      const std::uint64_t k = in_group[g];
      if (held > 0 && held + k > part_cap) tile_start.push_back(0), held = 0;
      held += k;
      in_group[g] = tile_start.size() - 1;
      tile_start.back() += k;
    }
    tile_start.insert(tile_start.begin(), 0);
    for (std::size_t t = 1; t < tile_start.size(); ++t) tile_start[t] += tile_start[t - 1];
    by_tile.resize(static_cast<std::size_t>(last - first));
    {
      std::vector<std::uint64_t> next(tile_start.begin(), tile_start.end() - 1);
      for (const sparse::Triple* t = first; t != last; ++t)
        by_tile[next[in_group[group_of(t->col, group)]]++] = *t;
    }
    for (std::uint64_t g : touched) in_group[g] = 0;
    for (std::size_t t = 0; t + 1 < tile_start.size(); ++t)
      emit(part, t, by_tile.data() + tile_start[t], by_tile.data() + tile_start[t + 1]);
  }
}

std::vector<PeShare> split_shares(const sparse::Coo& a, const sparse::Encoding& e, sparse::Partition kind,
                                  std::uint64_t pes, std::uint64_t grid_cols) {
  std::vector<PeShare> shares(std::max<std::uint64_t>(pes, 1));
  for_each_share(ARows(a), e, kind, pes, pes, grid_cols, 1,
                 [&](std::uint64_t part, std::uint64_t, PeShare& share) { shares[part] = std::move(share); });
  return shares;
}

}  // namespace treesim::kernels
