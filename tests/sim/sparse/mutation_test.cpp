// The sparse parsers meet hostile text: deterministic mutations of valid encodings and Matrix
// Market files must each parse or fail with a SparseError, never crash or hang (ASan and UBSan
// watch in CI). A parsed encoding prints back to itself.
#include <gtest/gtest.h>

#include <random>

#include "sim/sparse/encoding.h"
#include "sim/sparse/matrix_file.h"
#include "sim/sparse/sparse_error.h"
#include "sim/sparse/storage.h"
#include "tests/text_mutation.h"

namespace treesim::sparse {
namespace {

TEST(SparseMutation, EncodingsParseOrFailWithASparseError) {
  const std::vector<std::string> seeds = {
      "#sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed), posWidth = 32, crdWidth = 16 "
      "}>",
      "map = (i, j) -> (i floordiv 2 : dense, j floordiv 2 : compressed, i mod 2 : dense, j mod 2 : dense)",
      "(i, j) -> (i : compressed(nonunique), j : singleton)",
      "[c](i, j) -> (c * 3 * i : dense, i : dense, j : compressed)",
      "(i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : block2_4)"};
  std::mt19937_64 gen(14);
  int parsed = 0;
  for (int k = 0; k < 6000; ++k) {
    const std::string text =
        testing::mutate_text(seeds[k % seeds.size()], "(),:[]{}<>=*-#_ ijcdensopr0123456789", gen);
    try {
      const Encoding e = parse_encoding(text);
      ++parsed;
      ASSERT_EQ(parse_encoding(print_encoding(e)), e) << text;
    } catch (const SparseError& err) {
      ASSERT_FALSE(std::string(err.what()).empty());
    }
  }
  EXPECT_GT(parsed, 20);  // some mutations still parse, reaching the checks after parsing
}

TEST(SparseMutation, MatrixMarketReadsOrFailsWithASparseError) {
  const std::vector<std::string> seeds = {
      "%%MatrixMarket matrix coordinate real general\n3 4 3\n1 1 1.5\n2 4 -2e3\n3 2 7\n",
      "%%MatrixMarket matrix coordinate pattern symmetric\n% c\n3 3 2\n2 1\n3 3\n",
      "%%MatrixMarket matrix array integer skew-symmetric\n3 3\n1\n2\n3\n"};
  std::mt19937_64 gen(41);
  for (int k = 0; k < 6000; ++k) {
    const std::string text =
        testing::mutate_text(seeds[k % seeds.size()], "%MatrixMarket \n0123456789.-e+", gen);
    try {
      const MatrixFile f = read_matrix_market(text, "m.mtx");
      if (f.coo.rows <= 64 && f.coo.cols <= 64) validate(build(f.coo, parse_encoding("bsr2x2")));
    } catch (const SparseError& err) {
      ASSERT_FALSE(std::string(err.what()).empty());
    }
  }
}

}  // namespace
}  // namespace treesim::sparse
