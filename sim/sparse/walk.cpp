// Reading storage back: a walk down the levels from the root, as a kernel iterates it, giving each
// stored value its matrix coordinates.
#include <fmt/format.h>

#include <algorithm>

#include "sim/sparse/storage.h"

namespace treesim::sparse {
namespace {

struct Walker {
  const SparseMatrix& m;
  Coo out;
  std::vector<std::uint64_t> lc;

  void leaf(std::uint64_t value_index) {
    std::uint64_t dim[2] = {0, 0};
    for (std::size_t l = 0; l < lc.size(); ++l) {
      const LevelExpr& x = m.encoding.levels[l].expr;
      dim[x.dim] += x.op == ExprOp::kFloorDiv ? lc[l] * x.k : lc[l];
    }
    // BSR's edge blocks store entries past the matrix: padding, not entries.
    if (dim[0] < m.rows && dim[1] < m.cols) out.entries.push_back({dim[0], dim[1], m.values[value_index]});
  }

  void child(std::size_t l, std::uint64_t index, std::uint64_t coordinate) {
    lc[l] = coordinate;
    if (l + 1 == lc.size())
      leaf(index);
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
        for (std::uint64_t q = a.positions[parent]; q < a.positions[parent + 1]; ++q)
          child(l, q, a.coordinates[q]);
        break;
      case LevelFormat::kLooseCompressed:
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

}  // namespace

Coo stored_entries(const SparseMatrix& m) {
  Coo out{m.rows, m.cols, {}};
  if (m.encoding.is_ell()) {
    const bool by_rows = m.encoding.levels[0].expr.dim == 0;
    const std::uint64_t k = m.encoding.levels[0].expr.k, outer = m.level_sizes[1];
    const std::uint64_t pad = ell_pad(m.encoding.crd_width);
    for (std::uint64_t r = 0; r < outer; ++r)
      for (std::uint64_t s = 0; s < k; ++s) {
        const std::uint64_t c = m.levels[2].coordinates[r * k + s];
        if (c == pad) continue;
        out.entries.push_back({by_rows ? r : c, by_rows ? c : r, m.values[r * k + s]});
      }
    return out;
  }
  Walker w{m, std::move(out), std::vector<std::uint64_t>(m.encoding.levels.size())};
  w.level(0, 0);
  return std::move(w.out);
}

std::vector<double> to_dense(const SparseMatrix& m) {
  std::vector<double> dense(m.rows * m.cols, 0.0);
  for (const Triple& t : stored_entries(m).entries) dense[t.row * m.cols + t.col] += t.value;
  return dense;
}

SparseMatrix convert(const SparseMatrix& m, const Encoding& e) {
  Coo coo = stored_entries(m);
  coo.entries.erase(
      std::remove_if(coo.entries.begin(), coo.entries.end(), [](const Triple& t) { return t.value == 0; }),
      coo.entries.end());
  return build(coo, e);
}

std::uint64_t nonzeros(const SparseMatrix& m) {
  std::uint64_t n = 0;
  for (const Triple& t : stored_entries(m).entries) n += t.value != 0;
  return n;
}

std::uint64_t level_array_bytes(const SparseMatrix& m, std::size_t level, bool positions) {
  const LevelArrays& a = m.levels[level];
  const int bits = stored_bits(positions ? m.encoding.pos_width : m.encoding.crd_width);
  return (positions ? a.positions.size() : a.coordinates.size()) * static_cast<std::uint64_t>(bits / 8);
}

std::uint64_t storage_bytes(const SparseMatrix& m, std::uint64_t value_bytes) {
  std::uint64_t b = m.values.size() * value_bytes;
  for (std::size_t l = 0; l < m.levels.size(); ++l)
    b += level_array_bytes(m, l, true) + level_array_bytes(m, l, false);
  return b;
}

}  // namespace treesim::sparse
