// Validation of storage from outside: one error per broken rule, naming the level, array and index.
#include <gtest/gtest.h>

#include "sim/sparse/encoding.h"
#include "sim/sparse/sparse_error.h"
#include "sim/sparse/storage.h"

namespace treesim::sparse {
namespace {

const std::vector<double> kDense = {1, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0, 4, 0, 5, 0};

std::string error_of(const SparseMatrix& m) {
  try {
    validate(m);
  } catch (const SparseError& e) {
    return e.what();
  }
  return "valid";
}

SparseMatrix csr() { return build_dense(kDense, 4, 4, parse_encoding("csr")); }

TEST(Validate, BuiltStorageIsValidInEveryNamedEncoding) {
  for (const auto& s : shortcuts()) {
    const Encoding e = parse_encoding(s.name);
    if (e.is_ell() || e.levels.back().type.format == LevelFormat::kNOutOfM) continue;  // A does not fit them
    EXPECT_EQ(error_of(build_dense(kDense, 4, 4, e)), "valid") << s.name;
  }
}

TEST(Validate, DecreasingPositions) {
  SparseMatrix m = csr();
  m.levels[1].positions = {0, 2, 1, 3, 5};
  EXPECT_EQ(error_of(m), "level 1 positions[2]: 1 is less than positions[1] = 2 (expected non-decreasing)");
}

TEST(Validate, FirstPositionNotZero) {
  SparseMatrix m = csr();
  m.levels[1].positions[0] = 1;
  EXPECT_EQ(error_of(m), "level 1 positions[0]: expected 0, got 1");
}

TEST(Validate, LastPositionNotTheCoordinateCount) {
  SparseMatrix m = csr();
  m.levels[1].positions.back() = 4;
  EXPECT_EQ(error_of(m), "level 1 coordinates: expected 4 entries, got 5");
}

TEST(Validate, CoordinateOutOfRange) {
  SparseMatrix m = csr();
  m.levels[1].coordinates[1] = 4;
  EXPECT_EQ(error_of(m), "level 1 coordinates[1]: 4 is out of range (level size 4)");
}

TEST(Validate, UnsortedCoordinates) {
  SparseMatrix m = csr();
  m.levels[1].coordinates = {3, 0, 1, 0, 2};
  EXPECT_EQ(error_of(m), "level 1 coordinates[1]: 0 follows 3 (expected sorted coordinates)");
}

TEST(Validate, RepeatedCoordinateOfAUniqueLevel) {
  SparseMatrix m = csr();
  m.levels[1].coordinates = {3, 3, 1, 0, 2};
  EXPECT_EQ(error_of(m), "level 1 coordinates[1]: 3 repeats (expected unique coordinates)");
}

TEST(Validate, NonorderedLevelTakesAnyOrder) {
  SparseMatrix m =
      build_dense(kDense, 4, 4, parse_encoding("(i, j) -> (i : dense, j : compressed(nonordered))"));
  m.levels[1].coordinates = {3, 0, 1, 0, 2};
  EXPECT_EQ(error_of(m), "valid");
}

TEST(Validate, WrongNumberOfValues) {
  SparseMatrix m = csr();
  m.values.pop_back();
  EXPECT_EQ(error_of(m), "values: expected 5 entries (one per stored entry), got 4");
}

TEST(Validate, NOutOfMBlockWithARepeatedCoordinate) {
  SparseMatrix m = build_dense({0, 0, 1, 2}, 1, 4, parse_encoding("2:4"));
  m.levels[2].coordinates = {2, 2};
  EXPECT_EQ(error_of(m),
            "level 2 coordinates[1]: 2 repeats in block 0 (an 2:4 block holds 2 distinct coordinates)");
}

TEST(Validate, EllPaddingInTheMiddleOfARow) {
  SparseMatrix m = build_dense(kDense, 4, 4, parse_encoding("ell2"));
  m.levels[2].coordinates[2] = ell_pad(0);
  m.levels[2].coordinates[3] = 1;
  EXPECT_EQ(error_of(m),
            "level 2 coordinates[3]: a coordinate after padding (expected padding only at the row's end)");
}

TEST(Validate, PositionPastPosWidth) {
  SparseMatrix m =
      build_dense(kDense, 4, 4, parse_encoding("map = (i, j) -> (i : dense, j : compressed), posWidth = 8"));
  m.levels[1].positions[4] = 256;
  EXPECT_EQ(error_of(m), "level 1 positions[4]: 256 does not fit posWidth = 8");
}

TEST(Validate, LooseHiBelowLo) {
  SparseMatrix m = build_dense(kDense, 4, 4, parse_encoding("lcsr"));
  m.levels[1].positions[1] = 1;
  m.levels[1].positions[0] = 2;
  EXPECT_EQ(error_of(m), "level 1 positions[1]: 1 is less than its lo 2 (expected lo <= hi)");
}

}  // namespace
}  // namespace treesim::sparse
