// Building storage level by level, as MLIR's sparse tensor assembly does: the entries are mapped
// to level coordinates and sorted; each level then turns every parent (a range of entries sharing
// the coordinates above) into its children.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "sim/sparse/sparse_error.h"
#include "sim/sparse/storage.h"

namespace treesim::sparse {
namespace {

std::uint64_t level_coordinate(const LevelExpr& x, std::uint64_t row, std::uint64_t col) {
  const std::uint64_t d = x.dim == 0 ? row : col;
  switch (x.op) {
    case ExprOp::kFloorDiv:
      return d / x.k;
    case ExprOp::kMod:
      return d % x.k;
    default:
      return d;
  }
}

std::uint64_t level_size(const LevelExpr& x, std::uint64_t rows, std::uint64_t cols) {
  const std::uint64_t d = x.dim == 0 ? rows : cols;
  switch (x.op) {
    case ExprOp::kFloorDiv:
      return (d + x.k - 1) / x.k;
    case ExprOp::kMod:
      return x.k;
    default:
      return d;
  }
}

// A parent's entries: [begin, end) of the sorted entries; empty for a dense level's fill.
struct Range {
  std::size_t begin = 0, end = 0;
};

void check_fits(std::uint64_t v, int width, std::size_t level, const char* array) {
  if (stored_bits(width) < 64 && v >= (std::uint64_t{1} << width))
    throw SparseError(fmt::format("level {} {}: {} does not fit {} bits (the encoding's {})", level, array, v,
                                  width, std::string(array) == "positions" ? "posWidth" : "crdWidth"));
}

void check_entries(const Coo& coo) {
  for (std::size_t k = 0; k < coo.entries.size(); ++k) {
    const Triple& t = coo.entries[k];
    if (t.row >= coo.rows || t.col >= coo.cols)
      throw SparseError(
          fmt::format("entry {}: ({}, {}) is outside the {}x{} matrix", k, t.row, t.col, coo.rows, coo.cols));
  }
}

SparseMatrix build_ell(const Coo& coo, const Encoding& e) {
  SparseMatrix m{coo.rows, coo.cols, e, {}, {}, {}};
  const std::size_t rdim = e.levels[0].expr.dim;
  const std::uint64_t k = e.levels[0].expr.k;
  const std::uint64_t outer = rdim == 0 ? coo.rows : coo.cols, inner = rdim == 0 ? coo.cols : coo.rows;
  m.level_sizes = level_sizes(e, coo.rows, coo.cols);
  if (k > kMaxStoredEntries / std::max<std::uint64_t>(outer, 1))
    throw SparseError(
        fmt::format("ELL with {} slots per row over {} rows is more than the {} entries supported", k, outer,
                    kMaxStoredEntries));
  m.levels.resize(3);
  std::map<std::pair<std::uint64_t, std::uint64_t>, double> sorted;
  for (const Triple& t : coo.entries)
    sorted[rdim == 0 ? std::pair{t.row, t.col} : std::pair{t.col, t.row}] += t.value;
  const std::uint64_t pad = ell_pad(e.crd_width);
  auto& crd = m.levels[2].coordinates;
  crd.assign(outer * k, pad);
  m.values.assign(outer * k, 0.0);
  std::uint64_t row = ~std::uint64_t{0}, slot = 0;
  for (const auto& [rc, v] : sorted) {
    if (rc.first != row) row = rc.first, slot = 0;
    if (slot == k)
      throw SparseError(fmt::format("ELL with {} slots per {}: {} {} has more nonzeros", k,
                                    rdim == 0 ? "row" : "column", rdim == 0 ? "row" : "column", row));
    check_fits(rc.second, e.crd_width, 2, "coordinates");
    crd[row * k + slot] = rc.second;
    m.values[row * k + slot++] = v;
  }
  if (stored_bits(e.crd_width) < 64 && inner >= pad)
    throw SparseError(
        fmt::format("level 2 coordinates: {} columns leave no padding value in {} bits", inner, e.crd_width));
  return m;
}

}  // namespace

std::vector<std::uint64_t> level_sizes(const Encoding& e, std::uint64_t rows, std::uint64_t cols) {
  if (e.is_ell()) {
    const bool by_rows = e.levels[0].expr.dim == 0;
    const std::uint64_t outer = by_rows ? rows : cols, inner = by_rows ? cols : rows;
    return {e.levels[0].expr.k * outer, outer, inner};
  }
  std::vector<std::uint64_t> sizes;
  for (const Level& l : e.levels) sizes.push_back(level_size(l.expr, rows, cols));
  return sizes;
}

SparseMatrix build(const Coo& coo, const Encoding& e) {
  check_entries(coo);
  if (e.is_ell()) return build_ell(coo, e);
  const std::size_t nlev = e.levels.size();
  SparseMatrix m{coo.rows, coo.cols, e, {}, std::vector<LevelArrays>(nlev), {}};
  m.level_sizes = level_sizes(e, coo.rows, coo.cols);

  // Level coordinates of every entry (nlev per entry, flat), sorted; duplicates add up in file
  // order (a stable sort keeps it). One array, no allocation per entry.
  const std::size_t n = coo.entries.size();
  std::vector<std::uint64_t> all(n * nlev);
  for (std::size_t k = 0; k < n; ++k)
    for (std::size_t l = 0; l < nlev; ++l)
      all[k * nlev + l] = level_coordinate(e.levels[l].expr, coo.entries[k].row, coo.entries[k].col);
  const auto before = [&](std::size_t a, std::size_t b) {
    for (std::size_t l = 0; l < nlev; ++l)
      if (all[a * nlev + l] != all[b * nlev + l]) return all[a * nlev + l] < all[b * nlev + l];
    return false;
  };
  // Entries often come in level order already (CSR of a row-major share), and without duplicates:
  // then the coordinates are the distinct ones as they stand, and the values need only the sum
  // from 0. Otherwise they are sorted (stably) and duplicates summed.
  bool sorted = true, distinct = true;
  for (std::size_t k = 1; k < n && sorted; ++k) {
    std::size_t l = 0;  // the first level where entries k - 1 and k differ
    while (l < nlev && all[(k - 1) * nlev + l] == all[k * nlev + l]) ++l;
    if (l == nlev)
      distinct = false;
    else
      sorted = all[(k - 1) * nlev + l] < all[k * nlev + l];
  }
  std::vector<std::uint64_t> flat;
  std::vector<double> vals;
  if (sorted && distinct) {
    flat = std::move(all);
    vals.resize(n);
    for (std::size_t k = 0; k < n; ++k) vals[k] = 0.0 + coo.entries[k].value;  // -0.0 becomes 0.0
  } else {
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    if (!sorted) std::stable_sort(order.begin(), order.end(), before);
    flat.reserve(n * nlev);
    vals.reserve(n);
    for (const std::size_t k : order) {
      const std::uint64_t* lc = all.data() + k * nlev;
      if (!vals.empty() && std::equal(lc, lc + nlev, flat.end() - static_cast<std::ptrdiff_t>(nlev))) {
        vals.back() += coo.entries[k].value;
        continue;
      }
      flat.insert(flat.end(), lc, lc + nlev);
      vals.push_back(0.0 + coo.entries[k].value);  // as a sum from 0 (-0.0 becomes 0.0)
    }
    all = {};
  }

  std::vector<Range> parents = {{0, vals.size()}};
  for (std::size_t l = 0; l < nlev; ++l) {
    const LevelType& t = e.levels[l].type;
    LevelArrays& a = m.levels[l];
    std::vector<Range> children;
    if (t.format != LevelFormat::kDense) children.reserve(vals.size());
    const auto crd_at = [&](std::size_t k) { return flat[k * nlev + l]; };
    switch (t.format) {
      case LevelFormat::kDense:
        if (parents.size() * m.level_sizes[l] > kMaxStoredEntries)
          throw SparseError(fmt::format(
              "level {}: a dense level over {} parents stores {} x {} entries, more than the {} supported", l,
              parents.size(), parents.size(), m.level_sizes[l], kMaxStoredEntries));
        for (const Range& p : parents) {
          std::size_t k = p.begin;
          for (std::uint64_t c = 0; c < m.level_sizes[l]; ++c) {
            Range r{k, k};
            while (r.end < p.end && crd_at(r.end) == c) ++r.end;
            children.push_back(r);
            k = r.end;
          }
        }
        break;
      case LevelFormat::kCompressed:
      case LevelFormat::kLooseCompressed: {
        const bool loose = t.format == LevelFormat::kLooseCompressed;
        a.positions.reserve((loose ? 2 : 1) * parents.size() + 1);
        a.coordinates.reserve(vals.size());
        if (!loose) a.positions.push_back(0);
        for (const Range& p : parents) {
          if (loose) a.positions.push_back(children.size());
          for (std::size_t k = p.begin; k < p.end;) {
            Range r{k, k + 1};
            if (!t.nonunique)
              while (r.end < p.end && crd_at(r.end) == crd_at(k)) ++r.end;
            a.coordinates.push_back(crd_at(k));
            children.push_back(r);
            k = r.end;
          }
          a.positions.push_back(children.size());
        }
        break;
      }
      case LevelFormat::kSingleton:
        a.coordinates.reserve(parents.size());
        for (const Range& p : parents) {  // the level above is nonunique: one entry per parent
          a.coordinates.push_back(p.end > p.begin ? crd_at(p.begin) : 0);
          children.push_back(p);
        }
        break;
      case LevelFormat::kNOutOfM:
        for (std::size_t pi = 0; pi < parents.size(); ++pi) {
          const Range& p = parents[pi];
          if (p.end - p.begin > t.n)
            throw SparseError(fmt::format("level {}: block {} holds {} nonzeros, more than the {} of {}:{}",
                                          l, pi, p.end - p.begin, t.n, t.n, t.m));
          // The block's nonzeros, then unused coordinates (value 0) up to n, in coordinate order.
          std::vector<std::pair<std::uint64_t, Range>> slots;
          std::vector<bool> used(t.m, false);
          for (std::size_t k = p.begin; k < p.end; ++k)
            slots.push_back({crd_at(k), {k, k + 1}}), used[crd_at(k)] = true;
          for (std::uint64_t c = 0; c < t.m && slots.size() < t.n; ++c)
            if (!used[c]) slots.push_back({c, {0, 0}});
          std::sort(slots.begin(), slots.end(),
                    [](const auto& x, const auto& y) { return x.first < y.first; });
          for (const auto& [c, r] : slots) a.coordinates.push_back(c), children.push_back(r);
        }
        break;
    }
    if (stored_bits(e.pos_width) < 64)
      for (std::uint64_t p : a.positions) check_fits(p, e.pos_width, l, "positions");
    if (stored_bits(e.crd_width) < 64)
      for (std::uint64_t c : a.coordinates) check_fits(c, e.crd_width, l, "coordinates");
    parents = std::move(children);
  }
  m.values.reserve(parents.size());
  for (const Range& r : parents) m.values.push_back(r.end > r.begin ? vals[r.begin] : 0.0);
  return m;
}

SparseMatrix build_dense(const std::vector<double>& dense, std::uint64_t rows, std::uint64_t cols,
                         const Encoding& e) {
  Coo coo{rows, cols, {}};
  for (std::uint64_t i = 0; i < rows; ++i)
    for (std::uint64_t j = 0; j < cols; ++j)
      if (dense[i * cols + j] != 0) coo.entries.push_back({i, j, dense[i * cols + j]});
  return build(coo, e);
}

}  // namespace treesim::sparse
