// The loader's side of the sparse kernels: the shares (spmv_shares.cpp) placed in the LMs, in as
// few passes and column tiles as fit, and where everything sits in the LM.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <tuple>

#include "kernels/spmv/spmv.h"
#include "kernels/spmv/spmv_shares.h"
#include "sim/sparse/sparse_error.h"

namespace treesim::kernels {
namespace {

std::uint64_t align8(std::uint64_t n) { return (n + 7) / 8 * 8; }

// The PEs of one grid row: 2d's, else one.
std::uint64_t grid_cols_of(const SparseChoice& c, const machine::MachineConfig& m) {
  return c.partition == sparse::Partition::k2d ? sparse_grid_cols(m) : 1;
}

// The LM offsets of a placement from its block bytes, x rows, output rows and passes. LM: A's block
// and x / B's rows (twice over with passes), the bias (SpMV: twice over with row blocks, as a row
// block's bias is read after its last tile), then the int32 rows (and their sums with 2d) and the
// int8 rows.
void lay_out_lm(const SparseProblem& p, std::uint64_t row_blocks, SparsePlacement& s) {
  s.lm_a = 0;
  s.lm_x = s.lm_a + s.block_bytes;
  const std::uint64_t buffer_end = s.lm_x + align8(s.x_rows * p.n);
  s.buffer_bytes = s.passes > 1 ? buffer_end : 0;
  s.lm_bias = buffer_end + s.buffer_bytes;
  const std::uint64_t bias_bytes = p.bias.empty() ? 0 : align8(4 * (p.spmm ? p.n : s.c_rows));
  s.bias_buffer_bytes = row_blocks > 1 && !p.spmm ? bias_bytes : 0;
  s.lm_c = s.lm_bias + bias_bytes + s.bias_buffer_bytes;
  s.lm_sum = s.lm_c + (s.reduce_level >= 0 ? 4 * s.c_rows * p.n : 0);
  s.lm_y = s.lm_sum + 4 * s.c_rows * p.n;
  s.lm_end = s.lm_y + align8(s.c_rows * p.n);
}

// The split in row blocks, each cut into column tiles by `col_tiles` (for_each_share), and its LM
// layout. Row block k takes as many passes as its PEs' most tiles; in its pass t the PEs with a
// tile t walk it. Measuring only (`keep` false), the shares are made one at a time for their sizes
// and dropped: the passes, the LM layout and lm_end hold, the shares and A's chunk rows stay empty.
// With `give_up`, the split stops at the first share that cannot fit one pass's LM (lm_end then
// what the shares so far need, already over the LM; nothing else holds), heaviest parts first.
struct OverTheLm {};
SparsePlacement place_in_passes(const SparseProblem& p, const ARows& a_rows, const SparseChoice& c,
                                const machine::MachineConfig& m, std::uint64_t row_blocks,
                                std::uint64_t col_tiles, bool keep = true, bool give_up = false) {
  SparsePlacement s;
  s.choice = c;
  s.choice.row_blocks = row_blocks, s.choice.col_tiles = col_tiles;
  s.pes = m.pe_count();
  if (c.partition == sparse::Partition::k2d) s.reduce_level = sparse_grid_level(m);
  s.grid_cols = grid_cols_of(c, m);
  s.grid_rows = s.pes / s.grid_cols;
  s.storage_bytes.assign(2 * c.encoding.levels.size() + 1, 0);
  // Part k·pes + pe is row block k's part on PE pe; its tiles come in order, part after part.
  std::vector<std::uint64_t> tiles(s.pes * row_blocks, 0);
  std::vector<PeShare> made;
  bool several = row_blocks > 1;                                 // passes
  std::vector<std::pair<std::uint64_t, std::uint64_t>> made_at;  // each one's part and tile
  std::uint64_t largest = 0, largest_part = 0, largest_tile = 0;
  try {
    for_each_share(
        a_rows, c.encoding, c.partition, s.pes, s.pes * row_blocks, s.grid_cols, col_tiles,
        [&](std::uint64_t part, std::uint64_t t, PeShare& share) {
          ++tiles[part];
          const std::uint64_t bytes = sparse::block_bytes(share.local);
          // The first largest, pass by pass (row block, tile), then PE by PE.
          const auto key = [&](std::uint64_t q, std::uint64_t tile) {
            return std::tuple(q / s.pes, tile, q % s.pes);
          };
          if (bytes > largest || (bytes == largest && key(part, t) < key(largest_part, largest_tile)))
            largest = bytes, largest_part = part, largest_tile = t;
          s.x_rows = std::max<std::uint64_t>(s.x_rows, share.cols.size());
          s.c_rows = std::max<std::uint64_t>(s.c_rows, share.row_end - share.row_begin);
          for (std::size_t l = 0; l < c.encoding.levels.size(); ++l) {
            s.storage_bytes[2 * l] += sparse::level_array_bytes(share.local, l, true);
            s.storage_bytes[2 * l + 1] += sparse::level_array_bytes(share.local, l, false);
          }
          s.storage_bytes.back() += share.local.values.size();
          if (keep) made.push_back(std::move(share)), made_at.emplace_back(part, t);
          if (give_up) {  // the LM these shares need (two buffers once there is more than one pass)
            several = several || t > 0;
            s.passes = several ? 2 : 1;
            s.block_bytes = (largest + kAChunk - 1) / kAChunk * kAChunk;
            lay_out_lm(p, row_blocks, s);
            if (s.lm_end > m.lm_bytes()) throw OverTheLm{};
          }
        },
        give_up);
  } catch (const OverTheLm&) {
    return s;
  }
  // Passes: row block k's first is Σ of the blocks before it of their PEs' most tiles.
  s.block_passes.assign(row_blocks, 1);
  for (std::uint64_t part = 0; part < tiles.size(); ++part)
    s.block_passes[part / s.pes] = std::max(s.block_passes[part / s.pes], tiles[part]);
  std::vector<std::uint64_t> first_pass(row_blocks + 1, 0);
  for (std::uint64_t k = 0; k < row_blocks; ++k) first_pass[k + 1] = first_pass[k] + s.block_passes[k];
  s.passes = first_pass.back();
  s.largest_pe = largest_part % s.pes, s.largest_pass = first_pass[largest_part / s.pes] + largest_tile;
  s.block_bytes = (largest + kAChunk - 1) / kAChunk * kAChunk;  // whole chunk rows
  if (keep) {
    // The shares pass by pass, PE by PE: count each pass's, then place them (part by part).
    s.share_begin.assign(s.passes + 1, 0);
    for (std::uint64_t part = 0; part < tiles.size(); ++part)
      for (std::uint64_t t = 0; t < tiles[part]; ++t) ++s.share_begin[first_pass[part / s.pes] + t + 1];
    for (std::uint64_t j = 0; j < s.passes; ++j) s.share_begin[j + 1] += s.share_begin[j];
    s.shares.resize(made.size());
    std::vector<std::uint64_t> next(s.share_begin.begin(), s.share_begin.end() - 1);
    std::vector<std::size_t> by_part(made.size());
    for (std::size_t i = 0; i < by_part.size(); ++i) by_part[i] = i;
    std::sort(by_part.begin(), by_part.end(),
              [&](std::size_t x, std::size_t y) { return made_at[x] < made_at[y]; });
    for (const std::size_t i : by_part) {
      const auto [part, t] = made_at[i];
      s.shares[next[first_pass[part / s.pes] + t]++] = std::move(made[i]);
    }
    s.a_chunk_begin.assign(1, 0);
    for (const PeShare& share : s.shares)
      s.a_chunk_begin.push_back(s.a_chunk_begin.back() +
                                (sparse::block_bytes(share.local) + kAChunk - 1) / kAChunk);
  }
  lay_out_lm(p, row_blocks, s);
  return s;
}

// The fewest row blocks, 1 to `most` (a row per grid row), that fit with `col_tiles` tiles, by
// measuring placements (no shares kept); nullopt when none does. The LM a pass needs shrinks about
// in proportion to the row blocks, so guess from one block's, doubling, then bisect between the most
// that did not fit and the fewest that did.
// `one` is the LM one row block needs when the caller has measured it.
std::optional<std::uint64_t> fewest_row_blocks(const SparseProblem& p, const ARows& a_rows,
                                               const SparseChoice& c, const machine::MachineConfig& m,
                                               std::uint64_t col_tiles, std::uint64_t most,
                                               std::optional<std::uint64_t> one) {
  const std::uint64_t lm = m.lm_bytes();
  const auto fits = [&](std::uint64_t k) {
    return place_in_passes(p, a_rows, c, m, k, col_tiles, false, true).lm_end <= lm;
  };
  if (!one) one = place_in_passes(p, a_rows, c, m, 1, col_tiles, false, true).lm_end;
  if (*one <= lm) return 1;
  if (most == 1) return std::nullopt;
  // When even the most row blocks do not fit, nothing does (a share too large for any: a long row's
  // tile); found in one try rather than by doubling up to it.
  const std::uint64_t guess = std::min(most, std::max<std::uint64_t>(2, 2 * *one / lm + 1));
  if (guess < most && !fits(most)) return std::nullopt;
  std::uint64_t fails = 1, fit = 0;
  for (std::uint64_t k = guess;;) {
    if (fits(k)) {
      fit = k;
      break;
    }
    fails = k;
    if (k == most) return std::nullopt;
    k = std::min(most, 2 * k);
  }
  while (fit - fails > 1) {
    const std::uint64_t k = fails + (fit - fails) / 2;
    (fits(k) ? fit : fails) = k;
  }
  return fit;
}

// The most entries a part has in `parts` parts (row ranges, × grid columns with 2d): the part that
// for_each_share cuts into `col_tiles` tiles.
std::uint64_t heaviest_part(const ARows& a_rows, const sparse::Encoding& e, sparse::Partition kind,
                            std::uint64_t parts, std::uint64_t grid_cols) {
  const sparse::Coo& a = a_rows.a;
  const PartGrid grid(a, e, kind, parts, grid_cols, a_rows.entries);
  std::uint64_t most = 0;
  if (grid.grid_cols() == 1) {  // parts are row ranges: sum their rows' entries
    for (std::uint64_t part = 0; part < grid.parts(); ++part) {
      std::uint64_t n = 0;
      for (std::uint64_t r = grid.row_begin(part); r < grid.row_end(part); ++r) n += a_rows.entries[r];
      most = std::max(most, n);
    }
    return most;
  }
  std::vector<std::uint64_t> count(grid.parts(), 0);
  for (const sparse::Triple& t : a.entries) most = std::max(most, ++count[grid.part_of(t)]);
  return most;
}

// The column tiles that the longest rows need to fit with a row per grid row and pass: each of
// them alone, its entries in each grid column cut into tiles as for_each_share cuts the heaviest
// part's (at most its entries / tiles each) and stored in the encoding; doubling from the power of
// two below heaviest / LM. A guess at the tiles the whole matrix needs (not a bound: a part of more
// rows, cut by its own cap, may fit in fewer), found without placing all of it; at most `finest`.
std::uint64_t tiles_for_longest_rows(const SparseProblem& p, const ARows& a_rows, const SparseChoice& c,
                                     const machine::MachineConfig& m, std::uint64_t most,
                                     std::uint64_t finest) {
  const std::uint64_t group = dim_group(c.encoding, 1);
  std::vector<std::uint64_t> order(p.a.rows);
  for (std::uint64_t r = 0; r < p.a.rows; ++r) order[r] = r;
  const std::size_t top = std::min<std::size_t>(4, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                    [&](std::uint64_t a, std::uint64_t b) { return a_rows.entries[a] > a_rows.entries[b]; });
  std::vector<std::vector<sparse::Triple>> rows(top);
  if (a_rows.in_order) {  // each row a slice of A's entries
    for (std::size_t k = 0; k < top; ++k) {
      const auto [first, last] =
          std::equal_range(p.a.entries.begin(), p.a.entries.end(), sparse::Triple{order[k], 0, 0}, by_row);
      for (auto t = first; t != last; ++t) rows[k].push_back({0, t->col, t->value});
    }
  } else {
    for (const sparse::Triple& t : p.a.entries)
      for (std::size_t k = 0; k < top; ++k)
        if (t.row == order[k]) rows[k].push_back({0, t.col, t.value});
  }
  for (auto& row : rows)
    std::sort(row.begin(), row.end(),
              [](const sparse::Triple& a, const sparse::Triple& b) { return a.col < b.col; });
  const std::uint64_t grid_cols = grid_cols_of(c, m);
  const std::uint64_t heaviest =
      heaviest_part(a_rows, c.encoding, c.partition, m.pe_count() * most, grid_cols);
  const std::vector<std::uint64_t> col_starts = sparse::even_bounds(p.a.cols, grid_cols, group);
  ColumnRenumbering renumber(p.a.cols, group);
  std::uint64_t share = 0;  // each part's number for the renumbering's stamps
  // A tile takes at least a byte per entry (its value), so fewer tiles than heaviest / LM never fit:
  // start from the power of two below that. Tighter: a tile of the longest row (L entries, each in
  // its own column) needs a value and an x row (n bytes) per entry, twice over with more than one
  // pass, and holds at least min(L, cap - group + 1) entries (tiles are cut only where the next
  // column group would pass cap). So with W = LM / (2 (1 + n)) entries and L > W, no tile count
  // below heaviest / (W + group - 1) fits (with one pass, LM / (1 + n) in place of W). The start
  // never passes the power of two at or above `finest`, where the doubling stops anyway. (With 2d a
  // row is cut by grid columns first: the bound is left to the rows partitions.)
  std::uint64_t start = 1;
  while (2 * start <= heaviest / std::max<std::uint64_t>(1, m.lm_bytes())) start *= 2;
  const std::uint64_t longest = rows.empty() ? 0 : rows[0].size(), per_entry = 1 + p.n;
  // (W + group - 1 is at least 1: with B's rows wider than half the LM, W is 0.)
  const std::uint64_t w2 = m.lm_bytes() / (2 * per_entry), w1 = m.lm_bytes() / per_entry;
  const bool one_tile_fails =
      most > 1 ? longest > w2 && heaviest / (std::max<std::uint64_t>(1, w2 + group - 1)) >= 2
               : longest > w1 && heaviest / (std::max<std::uint64_t>(1, w1 + group - 1)) >= 2;
  if (grid_cols_of(c, m) == 1 && one_tile_fails && longest > w2) {
    std::uint64_t bound = 2;
    while (2 * bound <= heaviest / (std::max<std::uint64_t>(1, w2 + group - 1))) bound *= 2;
    std::uint64_t finest_pow2 = 1;
    while (finest_pow2 < finest) finest_pow2 *= 2;
    start = std::max(start, std::min(bound, finest_pow2));
  }
  for (std::uint64_t tiles = start;; tiles *= 2) {
    const std::uint64_t cap = (heaviest + tiles - 1) / tiles;
    SparsePlacement s;
    s.choice = c;
    s.pes = m.pe_count();
    s.passes = most * tiles;  // as the placement with a row per grid row and pass would have them
    if (c.partition == sparse::Partition::k2d) s.reduce_level = sparse_grid_level(m);
    std::uint64_t largest = 0;
    const auto measure = [&](sparse::Coo& part) {
      part.cols = renumber.apply(part.entries, ++share).size();
      largest = std::max(largest, sparse::block_bytes(sparse::build(part, c.encoding)));
      s.x_rows = std::max(s.x_rows, part.cols);
      part.entries.clear();
    };
    for (const auto& row : rows) {
      // The row's entries (in column order), grid column by grid column, in tiles of whole column
      // groups of at most `cap` entries.
      std::size_t next = 0;
      for (std::uint64_t g = 0; g < grid_cols; ++g) {
        sparse::Coo part{1, 0, {}};
        while (next < row.size() && row[next].col < col_starts[g + 1]) {
          std::size_t end = next;
          while (end < row.size() && group_of(row[end].col, group) == group_of(row[next].col, group)) ++end;
          if (!part.entries.empty() && part.entries.size() + (end - next) > cap) measure(part);
          part.entries.insert(part.entries.end(), row.begin() + static_cast<std::ptrdiff_t>(next),
                              row.begin() + static_cast<std::ptrdiff_t>(end));
          next = end;
        }
        if (!part.entries.empty()) measure(part);
      }
    }
    s.block_bytes = (largest + kAChunk - 1) / kAChunk * kAChunk;
    lay_out_lm(p, most, s);
    if (s.lm_end <= m.lm_bytes() || tiles >= finest) return tiles;
  }
}

}  // namespace

std::uint64_t sparse_grid_cols(const machine::MachineConfig& m) {
  const int level = sparse_grid_level(m);
  return level < 0 ? 1 : m.pe_count() / m.units_at(static_cast<std::size_t>(level));
}

SparseChoice default_choice(const SparseProblem& p) {
  return {p.encoding, p.encoding_name, p.partition, 0, 0};
}

std::uint64_t most_row_blocks(const SparseProblem& p, const SparseChoice& c,
                              const machine::MachineConfig& m) {
  const std::uint64_t pes = m.pe_count();
  return std::max<std::uint64_t>(1, (p.a.rows * grid_cols_of(c, m) + pes - 1) / pes);
}

SparsePlacement place_sparse(const SparseProblem& p, const SparseChoice& c, const machine::MachineConfig& m) {
  const ARows a_rows(p.a);  // every try below splits A by its rows
  if (c.row_blocks > 0 && c.col_tiles > 0) return place_in_passes(p, a_rows, c, m, c.row_blocks, c.col_tiles);
  const std::uint64_t most = most_row_blocks(p, c, m);
  // Row blocks first; column tiles when even a row per grid row and pass does not fit: for each
  // tile count, doubling, the fewest row blocks that fit, and of those plans the one of fewest
  // passes (more tiles can mean far fewer row blocks). The doubling starts from half of what the
  // longest rows need alone (a guess: a part of more rows, cut by its own cap, may fit in fewer)
  // and stops at the first tile count that takes no fewer passes than the one before, or at which
  // one row block fits, or past the best's passes (T tiles take at least T passes). Placements
  // are measured (sizes only) until the one to keep.
  SparsePlacement one = place_in_passes(p, a_rows, c, m, 1, 1, true, true);
  if (one.lm_end <= m.lm_bytes()) return one;
  std::optional<std::uint64_t> one_lm = one.lm_end;
  one = {};
  // Past as many tiles as one row block's heaviest part has entries, every tile holds one column
  // group: no more tiles help.
  const std::uint64_t finest = std::max<std::uint64_t>(
      1, heaviest_part(a_rows, c.encoding, c.partition, m.pe_count(), grid_cols_of(c, m)));
  std::optional<std::pair<std::uint64_t, std::uint64_t>> best;  // row blocks, tiles
  std::uint64_t best_passes = UINT64_MAX,
                tiles = std::max<std::uint64_t>(1, tiles_for_longest_rows(p, a_rows, c, m, most, finest) / 2);
  for (; tiles < best_passes; tiles *= 2) {
    if (tiles > 1) {  // one row block in these tiles, kept if it fits and takes the fewest passes
      one = place_in_passes(p, a_rows, c, m, 1, tiles, true, true);
      if (one.lm_end <= m.lm_bytes()) {
        if (one.passes <= best_passes) return one;
        break;
      }
      one_lm = one.lm_end;
      one = {};
    }
    if (const auto k = fewest_row_blocks(p, a_rows, c, m, tiles, most, one_lm)) {
      const std::uint64_t passes = place_in_passes(p, a_rows, c, m, *k, tiles, false).passes;
      if (passes >= best_passes) break;  // past the fewest: more tiles only add passes from here
      best = {*k, tiles}, best_passes = passes;
    }
    if (tiles >= finest) break;
  }
  if (best) return place_in_passes(p, a_rows, c, m, best->first, best->second);
  return place_in_passes(p, a_rows, c, m, most, tiles, false);  // nothing fits
}

}  // namespace treesim::kernels
