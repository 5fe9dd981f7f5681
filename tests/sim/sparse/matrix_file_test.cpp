// The matrix readers on the real files of tests/data/sparse (see its README) and on small
// hand-written ones, and their one-line errors.
#include <gtest/gtest.h>

#include "sim/sparse/matrix_file.h"
#include "sim/sparse/sparse_error.h"
#include "sim/sparse/storage.h"
#include "tests/test_support.h"

namespace treesim::sparse {
namespace {

using testing::data_path;

std::vector<double> dense_of(const Coo& c) {
  std::vector<double> d(c.rows * c.cols, 0.0);
  for (const Triple& t : c.entries) d[t.row * c.cols + t.col] += t.value;
  return d;
}

TEST(MatrixFiles, PatternMtx) {
  const MatrixFile f = read_matrix_file(data_path("sparse/jgl009.mtx"));
  EXPECT_EQ(f.coo.rows, 9u);
  EXPECT_EQ(f.coo.entries.size(), 50u);
  EXPECT_TRUE(f.pattern);
  EXPECT_EQ(f.coo.entries[0].value, 1.0);
}

TEST(MatrixFiles, RealGeneralMtx) {
  const MatrixFile f = read_matrix_file(data_path("sparse/pores_1.mtx"));
  EXPECT_EQ(f.coo.rows, 30u);
  EXPECT_EQ(f.coo.entries.size(), 180u);
  EXPECT_EQ(f.coo.entries[1].row, 1u);
  EXPECT_EQ(f.coo.entries[1].col, 0u);
  EXPECT_DOUBLE_EQ(f.coo.entries[1].value, -7.1785016460000e+06);
}

TEST(MatrixFiles, SymmetricMtxIsMirrored) {
  const MatrixFile f = read_matrix_file(data_path("sparse/lund_a.mtx"));
  EXPECT_EQ(f.coo.rows, 147u);
  EXPECT_EQ(f.coo.entries.size(), 2u * 1298 - 147);
  const auto d = dense_of(f.coo);
  for (std::uint64_t i = 0; i < 147; ++i)
    for (std::uint64_t j = 0; j < 147; ++j) ASSERT_EQ(d[i * 147 + j], d[j * 147 + i]);
}

TEST(MatrixFiles, HarwellBoeingRsaEqualsTheSameMatrixInMtx) {
  const MatrixFile hb = read_matrix_file(data_path("sparse/lund_a.rsa"));
  const MatrixFile mm = read_matrix_file(data_path("sparse/lund_a.mtx"));
  EXPECT_EQ(hb.kind, "RSA");
  EXPECT_EQ(dense_of(hb.coo), dense_of(mm.coo));
}

TEST(MatrixFiles, HarwellBoeingRuaWithDExponents) {
  const MatrixFile f = read_matrix_file(data_path("sparse/utm300.rua"));
  EXPECT_EQ(f.coo.rows, 300u);
  EXPECT_EQ(f.coo.entries.size(), 3155u);
  const MatrixFile g = read_matrix_file(data_path("sparse/g20.rua"));
  EXPECT_EQ(g.coo.rows, 400u);
  EXPECT_EQ(g.coo.entries.size(), 1920u);
}

TEST(MatrixFiles, MetisGraphWithVertexWeightsIsItsAdjacency) {
  const MatrixFile f = read_matrix_file(data_path("sparse/test.mgraph"));
  EXPECT_EQ(f.coo.rows, 766u);
  EXPECT_EQ(f.coo.entries.size(), 2u * 1314);
  const auto d = dense_of(f.coo);
  for (std::uint64_t i = 0; i < 766; ++i)
    for (std::uint64_t j = 0; j < 766; ++j) ASSERT_EQ(d[i * 766 + j], d[j * 766 + i]);
}

TEST(MatrixFiles, ArrayMtxIsColumnMajor) {
  const MatrixFile f =
      read_matrix_market("%%MatrixMarket matrix array real general\n2 3\n1\n2\n0\n4\n5\n0\n", "a.mtx");
  EXPECT_EQ(dense_of(f.coo), (std::vector<double>{1, 0, 5, 2, 4, 0}));
}

TEST(MatrixFiles, SkewSymmetricMirrorsNegated) {
  const MatrixFile f =
      read_matrix_market("%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 3\n", "s.mtx");
  EXPECT_EQ(dense_of(f.coo), (std::vector<double>{0, -3, 3, 0}));
}

// Reals as C and Fortran write them: a leading '+', an underflow (0, as strtod reads it), an
// exponent; inf and nan are refused.
TEST(MatrixFiles, RealValuesInEveryWrittenForm) {
  const MatrixFile f = read_matrix_market(
      "%%MatrixMarket matrix coordinate real general\n1 5 5\n1 1 +1.5\n1 2 1e-400\n1 3 -2.5e3\n1 4 .25\n1 5 "
      "7\n",
      "r.mtx");
  ASSERT_EQ(f.coo.entries.size(), 5u);
  EXPECT_EQ(f.coo.entries[0].value, 1.5);
  EXPECT_EQ(f.coo.entries[1].value, 0.0);
  EXPECT_EQ(f.coo.entries[2].value, -2500.0);
  EXPECT_EQ(f.coo.entries[3].value, 0.25);
  EXPECT_EQ(f.coo.entries[4].value, 7.0);
  for (const char* bad : {"inf", "nan", "1e999", "0x10", "1.5.2"})
    EXPECT_THROW(read_matrix_market(
                     std::string("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 ") + bad + "\n", "r.mtx"),
                 SparseError)
        << bad;
}

std::string read_error(const std::string& text) {
  try {
    read_matrix_market(text, "m.mtx");
  } catch (const SparseError& e) {
    return e.what();
  }
  return "no error";
}

TEST(MatrixFileErrors, WrongMtxFromRNamesTheLineAndIndex) {
  try {
    read_matrix_file(data_path("sparse/wrong.mtx"));
    FAIL();
  } catch (const SparseError& e) {
    EXPECT_NE(std::string(e.what()).find("wrong.mtx:3: expected a row index 1..2, got '0'"),
              std::string::npos)
        << e.what();
  }
}

TEST(MatrixFileErrors, TruncatedCoordinateFile) {
  EXPECT_EQ(read_error("%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1.0\n"),
            "m.mtx:3: expected 3 entries, got 1 before the end of the file");
}

TEST(MatrixFileErrors, BadBannerAndFields) {
  EXPECT_EQ(read_error("%MatrixMarket matrix coordinate real general\n"),
            "m.mtx:1: expected the banner '%%MatrixMarket matrix coordinate|array real|integer|pattern "
            "general|symmetric|skew-symmetric'");
  EXPECT_NE(read_error("%%MatrixMarket matrix coordinate complex general\n1 1 0\n")
                .find("complex is not supported"),
            std::string::npos);
  EXPECT_NE(read_error("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 x\n")
                .find("expected a real value, got 'x'"),
            std::string::npos);
  EXPECT_NE(read_error("%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n")
                .find("above the diagonal"),
            std::string::npos);
  EXPECT_NE(read_error("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 2\n")
                .find("expected the end"),
            std::string::npos);
  EXPECT_NE(read_error("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 nan\n")
                .find("expected a real value"),
            std::string::npos);
}

TEST(MatrixFileErrors, HarwellBoeingDecreasingPointers) {
  const std::string hb =
      "title                                                                   key\n"
      "             3             1             1             1\n"
      "RUA                        2             2             2             0\n"
      "(3I5)           (2I5)           (2E10.3)            \n"
      "    1    3    2\n"
      "    1    2\n"
      " 1.000E+00 2.000E+00\n";
  try {
    read_harwell_boeing(hb, "h.rua");
    FAIL();
  } catch (const SparseError& e) {
    EXPECT_STREQ(e.what(),
                 "h.rua:5: column pointer 2 is less than the one before (3); expected non-decreasing");
  }
}

TEST(MatrixFileErrors, MetisGraphWithTooFewAdjacencies) {
  try {
    read_metis_graph("3 2\n2\n1 3\n2 1\n", "g.graph");
    FAIL();
  } catch (const SparseError& e) {
    EXPECT_STREQ(e.what(), "g.graph:4: more adjacencies than the header's 2 x 2 edges");
  }
}

TEST(MatrixFileErrors, UnknownExtension) {
  EXPECT_THROW(format_of("a.txt"), SparseError);
  EXPECT_EQ(format_of("x/A.RSA"), MatrixFormat::kHarwellBoeing);
}

}  // namespace
}  // namespace treesim::sparse
