// Reading storage back: a walk down the levels from the root, as a kernel iterates it, giving each
// stored value its matrix coordinates.
#include <fmt/format.h>

#include <algorithm>

#include "sim/sparse/storage.h"
#include "sim/sparse/walk.h"

namespace treesim::sparse {
Coo stored_entries(const SparseMatrix& m) {
  Coo out{m.rows, m.cols, {}};
  // BSR's edge blocks and ELL's padding slots are walked but are not entries.
  walk_levels(m, [&](std::uint64_t row, std::uint64_t col, std::uint64_t q) {
    out.entries.push_back({row, col, m.values[q]});
  });
  return out;
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
