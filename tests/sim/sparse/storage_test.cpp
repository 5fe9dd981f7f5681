// Storage arrays of the note's worked examples (tensor-layout §8.3), reproduced exactly, and
// conversions back to the same matrix.
#include <gtest/gtest.h>

#include <map>

#include "sim/sparse/encoding.h"
#include "sim/sparse/sparse_error.h"
#include "sim/sparse/storage.h"

namespace treesim::sparse {
namespace {

using U = std::vector<std::uint64_t>;
using D = std::vector<double>;

// The note's example A (4×4, nnz 5).
const D kA = {1, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0, 4, 0, 5, 0};

SparseMatrix a_in(const std::string& e) { return build_dense(kA, 4, 4, parse_encoding(e)); }

TEST(Storage, CsrOfTheNotesExample) {
  const SparseMatrix m = a_in("csr");
  EXPECT_EQ(m.levels[1].positions, (U{0, 2, 2, 3, 5}));
  EXPECT_EQ(m.levels[1].coordinates, (U{0, 3, 1, 0, 2}));
  EXPECT_EQ(m.values, (D{1, 2, 3, 4, 5}));
}

TEST(Storage, CscOfTheNotesExample) {
  const SparseMatrix m = a_in("csc");
  EXPECT_EQ(m.levels[1].positions, (U{0, 2, 3, 4, 5}));
  EXPECT_EQ(m.levels[1].coordinates, (U{0, 3, 2, 3, 0}));
  EXPECT_EQ(m.values, (D{1, 4, 3, 5, 2}));
}

TEST(Storage, CooOfTheNotesExample) {
  const SparseMatrix m = a_in("coo");
  EXPECT_EQ(m.levels[0].positions, (U{0, 5}));
  EXPECT_EQ(m.levels[0].coordinates, (U{0, 0, 2, 3, 3}));
  EXPECT_EQ(m.levels[1].coordinates, (U{0, 3, 1, 0, 2}));
  EXPECT_EQ(m.values, (D{1, 2, 3, 4, 5}));
}

TEST(Storage, DcsrAndDcscOfTheNotesExample) {
  const SparseMatrix r = a_in("dcsr");
  EXPECT_EQ(r.levels[0].positions, (U{0, 3}));
  EXPECT_EQ(r.levels[0].coordinates, (U{0, 2, 3}));
  EXPECT_EQ(r.levels[1].positions, (U{0, 2, 3, 5}));
  EXPECT_EQ(r.levels[1].coordinates, (U{0, 3, 1, 0, 2}));
  const SparseMatrix c = a_in("dcsc");
  EXPECT_EQ(c.levels[0].coordinates, (U{0, 1, 2, 3}));
  EXPECT_EQ(c.levels[1].positions, (U{0, 2, 3, 4, 5}));
  EXPECT_EQ(c.levels[1].coordinates, (U{0, 3, 2, 3, 0}));
  EXPECT_EQ(c.values, (D{1, 4, 3, 5, 2}));
}

TEST(Storage, EllOfTheNotesExamplePadsWithMinusOne) {
  const SparseMatrix m = a_in("ell2");
  const std::uint64_t p = ell_pad(0);
  EXPECT_EQ(m.levels[2].coordinates, (U{0, 3, p, p, 1, p, 0, 2}));
  EXPECT_EQ(m.values, (D{1, 2, 0, 0, 3, 0, 4, 5}));
}

// The MLIR block SDDMM example (block.mtx, 4×6, 2×2 blocks).
const D kBlock = {1, 2, 0, 0, 4, 0, 0, 3, 0, 0, 0, 5, 0, 0, 6, 7, 0, 0, 0, 0, 8, 0, 0, 0};

TEST(Storage, BsrExampleOfTheNoteReproducesExactly) {
  const SparseMatrix m = build_dense(kBlock, 4, 6, parse_encoding("bsr2x2"));
  EXPECT_EQ(m.level_sizes, (U{2, 3, 2, 2}));
  EXPECT_EQ(m.levels[1].positions, (U{0, 2, 3}));
  EXPECT_EQ(m.levels[1].coordinates, (U{0, 2, 1}));
  EXPECT_EQ(m.values, (D{1, 2, 0, 3, 4, 0, 0, 5, 6, 7, 8, 0}));
}

TEST(Storage, BsrExampleAsCsr) {
  const SparseMatrix m = build_dense(kBlock, 4, 6, parse_encoding("csr"));
  EXPECT_EQ(m.levels[1].positions, (U{0, 3, 5, 7, 8}));
  EXPECT_EQ(m.levels[1].coordinates, (U{0, 1, 4, 1, 5, 2, 3, 2}));
  EXPECT_EQ(m.values, (D{1, 2, 4, 3, 5, 6, 7, 8}));
}

// The MLIR NV_24 example (3×8).
const D kNv24 = {0, 0, 1, 2, 0, 3, 0, 4, 0, 5, 6, 0, 7, 0, 0, 8, 9, 0, 10, 0, 11, 12, 0, 0};

TEST(Storage, TwoFourExampleOfTheNote) {
  const SparseMatrix m = build_dense(kNv24, 3, 8, parse_encoding("2:4"));
  EXPECT_EQ(m.levels[2].coordinates, (U{2, 3, 1, 3, 1, 2, 0, 3, 0, 2, 0, 1}));
  EXPECT_EQ(m.values, (D{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
}

TEST(Storage, LooseCsrOfTheTwoFourExample) {
  const SparseMatrix m = build_dense(kNv24, 3, 8, parse_encoding("lcsr"));
  EXPECT_EQ(m.levels[1].positions, (U{0, 4, 4, 8, 8, 12}));
  EXPECT_EQ(m.levels[1].coordinates, (U{2, 3, 5, 7, 1, 2, 4, 7, 0, 2, 4, 5}));
}

TEST(Storage, LooseCompressedWithGapsWalksOnlyItsIntervals) {
  // MLIR's assemble example: pos 1 2 4 6 over a buffer with unused slots.
  SparseMatrix m = build(Coo{2, 4, {}}, parse_encoding("lcsr"));
  m.levels[1].positions = {1, 2, 4, 6};
  m.levels[1].coordinates = {0, 1, 2, 0, 0, 3};
  m.values = {111, 10, 222, 333, 0, 20};
  validate(m);
  EXPECT_EQ(to_dense(m), (D{0, 10, 0, 0, 0, 0, 0, 20}));
}

TEST(Storage, WidthsSetTheBytesOfEachArray) {
  const SparseMatrix m = a_in(
      "#sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed), posWidth = 32, crdWidth = 16 "
      "}>");
  EXPECT_EQ(level_array_bytes(m, 1, true), 5u * 4);
  EXPECT_EQ(level_array_bytes(m, 1, false), 5u * 2);
  EXPECT_EQ(storage_bytes(m, 1), 20u + 10 + 5);
}

TEST(Storage, DuplicateTriplesAddUp) {
  const SparseMatrix m = build(Coo{2, 2, {{1, 1, 2.0}, {1, 1, 3.0}, {0, 0, 1.0}}}, parse_encoding("csr"));
  EXPECT_EQ(m.values, (D{1, 5}));
}

// Against a plain reference (a map in file order): short rows (sorted by insertion) and a long one
// (by stable_sort), unsorted and repeated columns, rows out of order.
TEST(Storage, SumDuplicatesSortsRowsAndAddsRepeatsInFileOrder) {
  Coo c{5, 100, {}};
  std::map<std::pair<std::uint64_t, std::uint64_t>, double> want;
  std::uint64_t x = 7;
  for (int i = 0; i < 400; ++i) {
    x = x * 6364136223846793005u + 1442695040888963407u;
    const std::uint64_t row = i < 300 ? 2 : (x >> 40) % 5, col = (x >> 20) % (row == 2 ? 100 : 7);
    const double v = static_cast<double>((x >> 50) % 9) - 4;
    c.entries.push_back({row, col, v});
    want[{row, col}] += v;
  }
  const Coo got = sum_duplicates(c);
  ASSERT_EQ(got.entries.size(), want.size());
  std::size_t k = 0;
  for (const auto& [at, v] : want) {
    EXPECT_EQ(got.entries[k].row, at.first);
    EXPECT_EQ(got.entries[k].col, at.second);
    EXPECT_EQ(got.entries[k].value, v);
    ++k;
  }
}

TEST(StorageErrors, TwoFourBlockWithThreeNonzeros) {
  const D dense = {1, 2, 3, 0};
  try {
    build_dense(dense, 1, 4, parse_encoding("2:4"));
    FAIL();
  } catch (const SparseError& e) {
    EXPECT_STREQ(e.what(), "level 2: block 0 holds 3 nonzeros, more than the 2 of 2:4");
  }
}

TEST(StorageErrors, EllRowWiderThanItsSlots) { EXPECT_THROW(a_in("ell1"), SparseError); }

TEST(StorageErrors, CoordinateWiderThanCrdWidth) {
  Coo c{1, 300, {{0, 299, 1.0}}};
  try {
    build(c, parse_encoding("map = (i, j) -> (i : dense, j : compressed), crdWidth = 8"));
    FAIL();
  } catch (const SparseError& e) {
    EXPECT_STREQ(e.what(), "level 1 coordinates: 299 does not fit 8 bits (the encoding's crdWidth)");
  }
}

TEST(StorageErrors, EntryOutsideTheMatrix) {
  EXPECT_THROW(build(Coo{2, 2, {{2, 0, 1.0}}}, parse_encoding("csr")), SparseError);
}

}  // namespace
}  // namespace treesim::sparse
