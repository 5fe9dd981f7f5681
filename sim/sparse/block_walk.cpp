// The walk a PE does over its block: down the levels from the root, as MLIR's sparse iteration
// does, counting the entries and segments it visits (its work) and handing every entry inside the
// matrix to the multiply.
#include "sim/sparse/pe_block.h"

namespace treesim::sparse {
namespace {

template <typename Leaf>
struct BlockWalker {
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

template <typename Leaf>
WalkWork walk(const SparseMatrix& m, Leaf&& leaf) {
  if (m.encoding.is_ell()) {
    // K slots per row, padding included: the lock-step walk visits every slot.
    const bool by_rows = m.encoding.levels[0].expr.dim == 0;
    const std::uint64_t k = m.encoding.levels[0].expr.k, outer = m.level_sizes[1];
    const std::uint64_t pad = ell_pad(m.encoding.crd_width);
    WalkWork w;
    for (std::uint64_t r = 0; r < outer; ++r)
      for (std::uint64_t s = 0; s < k; ++s) {
        ++w.entries;
        const std::uint64_t c = m.levels[2].coordinates[r * k + s];
        if (c != pad) leaf(by_rows ? r : c, by_rows ? c : r, r * k + s);
      }
    return w;
  }
  BlockWalker<Leaf> w{m, leaf, {}, std::vector<std::uint64_t>(m.encoding.levels.size())};
  w.level(0, 0);
  return w.work;
}

}  // namespace

WalkWork walk_work(const SparseMatrix& m) {
  return walk(m, [](std::uint64_t, std::uint64_t, std::uint64_t) {});
}

WalkWork multiply_block(const SparseMatrix& a, const std::int8_t* b, std::uint64_t n, std::int32_t b_zero,
                        std::int32_t* y) {
  return walk(a, [&](std::uint64_t row, std::uint64_t col, std::uint64_t q) {
    const auto v = static_cast<std::int32_t>(a.values[q]);
    for (std::uint64_t j = 0; j < n; ++j) {
      const std::int32_t term = v * (static_cast<std::int32_t>(b[col * n + j]) - b_zero);
      std::int32_t& acc = y[row * n + j];
      acc = static_cast<std::int32_t>(static_cast<std::uint32_t>(acc) + static_cast<std::uint32_t>(term));
    }
  });
}

}  // namespace treesim::sparse
