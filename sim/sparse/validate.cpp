// Validation of storage that came from outside, level by level from the root, so that the walk
// (walk.cpp) can trust every index it reads. Each error names the level, the array and the index.
#include <fmt/format.h>

#include "sim/sparse/sparse_error.h"
#include "sim/sparse/storage.h"

namespace treesim::sparse {
namespace {

[[noreturn]] void fail(std::size_t l, const char* array, std::uint64_t index, const std::string& what) {
  throw SparseError(fmt::format("level {} {}[{}]: {}", l, array, index, what));
}

void expect_size(std::size_t l, const char* array, std::uint64_t got, std::uint64_t want) {
  if (got != want)
    throw SparseError(fmt::format("level {} {}: expected {} entries, got {}", l, array, want, got));
}

void check_widths(const SparseMatrix& m, std::size_t l) {
  const LevelArrays& a = m.levels[l];
  const int pw = stored_bits(m.encoding.pos_width), cw = stored_bits(m.encoding.crd_width);
  for (std::size_t k = 0; k < a.positions.size(); ++k)
    if (pw < 64 && a.positions[k] >= (std::uint64_t{1} << pw))
      fail(l, "positions", k, fmt::format("{} does not fit posWidth = {}", a.positions[k], pw));
  for (std::size_t k = 0; k < a.coordinates.size(); ++k)
    if (cw < 64 && a.coordinates[k] >= (std::uint64_t{1} << cw) &&
        !(m.encoding.is_ell() && a.coordinates[k] == ell_pad(cw)))
      fail(l, "coordinates", k, fmt::format("{} does not fit crdWidth = {}", a.coordinates[k], cw));
}

// Coordinates of one parent's segment [lo, hi): in range, and increasing unless the level allows
// otherwise.
void check_segment(const SparseMatrix& m, std::size_t l, std::uint64_t lo, std::uint64_t hi) {
  const LevelType& t = m.encoding.levels[l].type;
  const auto& crd = m.levels[l].coordinates;
  for (std::uint64_t q = lo; q < hi; ++q) {
    if (crd[q] >= m.level_sizes[l])
      fail(l, "coordinates", q, fmt::format("{} is out of range (level size {})", crd[q], m.level_sizes[l]));
    if (q > lo && !t.nonordered) {
      if (crd[q] < crd[q - 1])
        fail(l, "coordinates", q,
             fmt::format("{} follows {} (expected sorted coordinates)", crd[q], crd[q - 1]));
      if (crd[q] == crd[q - 1] && !t.nonunique)
        fail(l, "coordinates", q, fmt::format("{} repeats (expected unique coordinates)", crd[q]));
    }
  }
}

void validate_ell(const SparseMatrix& m) {
  const std::uint64_t k = m.encoding.levels[0].expr.k, outer = m.level_sizes[1];
  const auto& crd = m.levels[2].coordinates;
  expect_size(2, "coordinates", crd.size(), outer * k);
  check_widths(m, 2);
  const std::uint64_t pad = ell_pad(m.encoding.crd_width);
  for (std::uint64_t r = 0; r < outer; ++r)
    for (std::uint64_t s = 0; s < k; ++s) {
      const std::uint64_t q = r * k + s, c = crd[q];
      if (c == pad) continue;
      if (s > 0 && crd[q - 1] == pad)
        fail(2, "coordinates", q, "a coordinate after padding (expected padding only at the row's end)");
      if (c >= m.level_sizes[2])
        fail(2, "coordinates", q, fmt::format("{} is out of range (level size {})", c, m.level_sizes[2]));
      if (s > 0 && c <= crd[q - 1])
        fail(2, "coordinates", q,
             fmt::format("{} follows {} (expected increasing coordinates)", c, crd[q - 1]));
    }
  if (m.values.size() != outer * k)
    throw SparseError(fmt::format("values: expected {} entries, got {}", outer * k, m.values.size()));
}

}  // namespace

void validate(const SparseMatrix& m) {
  const std::size_t nlev = m.encoding.levels.size();
  if (m.levels.size() != nlev || m.level_sizes.size() != nlev)
    throw SparseError(fmt::format("expected {} levels, got {}", nlev, m.levels.size()));
  if (m.encoding.is_ell()) return validate_ell(m);
  std::uint64_t parents = 1;
  for (std::size_t l = 0; l < nlev; ++l) {
    const LevelType& t = m.encoding.levels[l].type;
    const LevelArrays& a = m.levels[l];
    check_widths(m, l);
    std::uint64_t children = 0;
    switch (t.format) {
      case LevelFormat::kDense:
        expect_size(l, "positions", a.positions.size(), 0);
        expect_size(l, "coordinates", a.coordinates.size(), 0);
        if (m.level_sizes[l] != 0 && parents > kMaxStoredEntries / m.level_sizes[l])
          throw SparseError(fmt::format(
              "level {}: a dense level of size {} over {} parents is more than the {} entries supported", l,
              m.level_sizes[l], parents, kMaxStoredEntries));
        children = parents * m.level_sizes[l];
        break;
      case LevelFormat::kCompressed: {
        expect_size(l, "positions", a.positions.size(), parents + 1);
        if (a.positions[0] != 0) fail(l, "positions", 0, fmt::format("expected 0, got {}", a.positions[0]));
        for (std::uint64_t p = 1; p <= parents; ++p)
          if (a.positions[p] < a.positions[p - 1])
            fail(l, "positions", p,
                 fmt::format("{} is less than positions[{}] = {} (expected non-decreasing)", a.positions[p],
                             p - 1, a.positions[p - 1]));
        expect_size(l, "coordinates", a.coordinates.size(), a.positions[parents]);
        for (std::uint64_t p = 0; p < parents; ++p) check_segment(m, l, a.positions[p], a.positions[p + 1]);
        children = a.coordinates.size();
        break;
      }
      case LevelFormat::kLooseCompressed:
        expect_size(l, "positions", a.positions.size(), 2 * parents);
        for (std::uint64_t p = 0; p < parents; ++p) {
          const std::uint64_t lo = a.positions[2 * p], hi = a.positions[2 * p + 1];
          if (hi < lo)
            fail(l, "positions", 2 * p + 1,
                 fmt::format("{} is less than its lo {} (expected lo <= hi)", hi, lo));
          if (hi > a.coordinates.size())
            fail(l, "positions", 2 * p + 1,
                 fmt::format("{} is past the {} coordinates", hi, a.coordinates.size()));
          check_segment(m, l, lo, hi);
        }
        children = a.coordinates.size();
        break;
      case LevelFormat::kSingleton:
        expect_size(l, "positions", a.positions.size(), 0);
        expect_size(l, "coordinates", a.coordinates.size(), parents);
        for (std::uint64_t q = 0; q < parents; ++q)
          if (a.coordinates[q] >= m.level_sizes[l])
            fail(l, "coordinates", q,
                 fmt::format("{} is out of range (level size {})", a.coordinates[q], m.level_sizes[l]));
        children = parents;
        break;
      case LevelFormat::kNOutOfM:
        expect_size(l, "positions", a.positions.size(), 0);
        expect_size(l, "coordinates", a.coordinates.size(), parents * t.n);
        for (std::uint64_t b = 0; b < parents; ++b) {
          std::uint64_t seen = 0;
          for (std::uint64_t s = 0; s < t.n; ++s) {
            const std::uint64_t q = b * t.n + s, c = a.coordinates[q];
            if (c >= t.m)
              fail(l, "coordinates", q, fmt::format("{} is out of range in a 1x{} block", c, t.m));
            if (seen >> c & 1)
              fail(l, "coordinates", q,
                   fmt::format("{} repeats in block {} (an {}:{} block holds {} distinct coordinates)", c, b,
                               t.n, t.m, t.n));
            seen |= std::uint64_t{1} << c;
          }
        }
        children = parents * t.n;
        break;
    }
    parents = children;
  }
  if (m.values.size() != parents)
    throw SparseError(
        fmt::format("values: expected {} entries (one per stored entry), got {}", parents, m.values.size()));
}

}  // namespace treesim::sparse
