// The one walk down a sparse matrix's levels from the root, as MLIR's sparse iteration does: every
// stored entry inside the matrix goes to leaf(row, col, value_index), and the walk counts its work
// (the entries and segments it visits). The PE's multiply (pe_block.h) and reading storage back
// (stored_entries) both use it.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/sparse/storage.h"

namespace treesim::sparse {

// A sparse walk's work: every stored entry it visits (padding, in-block zeros and n_out_of_m slots
// included: a lock-step PE walks them) and every segment whose positions it reads (one per parent
// of a compressed or loose_compressed level).
// `visits` counts the coordinates the walk steps through, per level format (a dense level's every
// child, a compressed level's every stored coordinate, ...): what a machine's per-level costs
// (pe.sparse_mac.level_items) charge.
enum class VisitKind : std::size_t { kDense, kCompressed, kSingleton, kNOutOfM };
inline constexpr std::size_t kVisitKinds = 4;
inline VisitKind visit_kind(LevelFormat f) {
  switch (f) {
    case LevelFormat::kDense:
      return VisitKind::kDense;
    case LevelFormat::kCompressed:
    case LevelFormat::kLooseCompressed:
      return VisitKind::kCompressed;
    case LevelFormat::kSingleton:
      return VisitKind::kSingleton;
    case LevelFormat::kNOutOfM:
      return VisitKind::kNOutOfM;
  }
  return VisitKind::kDense;
}

struct WalkWork {
  std::uint64_t entries = 0, segments = 0;
  std::array<std::uint64_t, kVisitKinds> visits{};  // by VisitKind
  std::uint64_t items() const { return entries + segments; }
};

namespace detail {

template <typename Leaf>
struct Walker {
  const SparseMatrix& m;
  Leaf& leaf;
  WalkWork work;
  std::vector<std::uint64_t> lc;

  void at_leaf(std::uint64_t value_index) {
    ++work.entries;
    std::uint64_t dim[2] = {0, 0};
    for (std::size_t l = 0; l < lc.size(); ++l) {
      const LevelExpr& x = m.encoding.levels[l].expr;
      dim[x.dim] += x.op == ExprOp::kFloorDiv ? lc[l] * x.k : lc[l];
    }
    if (dim[0] < m.rows && dim[1] < m.cols) leaf(dim[0], dim[1], value_index);
  }

  void child(std::size_t l, std::uint64_t index, std::uint64_t coordinate) {
    ++work.visits[static_cast<std::size_t>(visit_kind(m.encoding.levels[l].type.format))];
    lc[l] = coordinate;
    if (l + 1 == lc.size())
      at_leaf(index);
    else
      level(l + 1, index);
  }

  void level(std::size_t l, std::uint64_t parent) {
    const LevelType& t = m.encoding.levels[l].type;
    const LevelArrays& a = m.levels[l];
    switch (t.format) {
      case LevelFormat::kDense:
        for (std::uint64_t c = 0; c < m.level_sizes[l]; ++c) child(l, parent * m.level_sizes[l] + c, c);
        break;
      case LevelFormat::kCompressed:
        ++work.segments;
        for (std::uint64_t q = a.positions[parent]; q < a.positions[parent + 1]; ++q)
          child(l, q, a.coordinates[q]);
        break;
      case LevelFormat::kLooseCompressed:
        ++work.segments;
        for (std::uint64_t q = a.positions[2 * parent]; q < a.positions[2 * parent + 1]; ++q)
          child(l, q, a.coordinates[q]);
        break;
      case LevelFormat::kSingleton:
        child(l, parent, a.coordinates[parent]);
        break;
      case LevelFormat::kNOutOfM:
        for (std::uint64_t s = 0; s < t.n; ++s) child(l, parent * t.n + s, a.coordinates[parent * t.n + s]);
        break;
    }
  }
};

}  // namespace detail

template <typename Leaf>
WalkWork walk_levels(const SparseMatrix& m, Leaf&& leaf) {
  if (m.encoding.is_ell()) {
    // K slots per row, padding included: the lock-step walk visits every slot (a dense step over the
    // rows, a coordinate read per slot).
    const bool by_rows = m.encoding.levels[0].expr.dim == 0;
    const std::uint64_t k = m.encoding.levels[0].expr.k, outer = m.level_sizes[1];
    const std::uint64_t pad = ell_pad(m.encoding.crd_width);
    WalkWork w;
    w.visits[static_cast<std::size_t>(VisitKind::kDense)] = outer;
    w.visits[static_cast<std::size_t>(VisitKind::kSingleton)] = outer * k;
    for (std::uint64_t r = 0; r < outer; ++r)
      for (std::uint64_t s = 0; s < k; ++s) {
        ++w.entries;
        const std::uint64_t c = m.levels[2].coordinates[r * k + s];
        if (c != pad) leaf(by_rows ? r : c, by_rows ? c : r, r * k + s);
      }
    return w;
  }
  detail::Walker<Leaf> w{m, leaf, {}, std::vector<std::uint64_t>(m.encoding.levels.size())};
  w.level(0, 0);
  return w.work;
}

}  // namespace treesim::sparse
