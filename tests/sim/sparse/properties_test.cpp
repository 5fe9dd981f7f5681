// Property tests on random matrices: dense → E → dense and E1 → E2 → E1 are identities for every
// pair of the named encodings (and widths, odd shapes, block sizes that do not divide the matrix).
#include <gtest/gtest.h>

#include <random>

#include "sim/sparse/encoding.h"
#include "sim/sparse/storage.h"

namespace treesim::sparse {
namespace {

struct Random {
  std::uint64_t rows, cols;
  std::vector<double> dense;
};

// Nonzeros small integers; at most 2 in each aligned 1×4 block and 3 in a row, so 2:4 and ELL
// (3 slots) hold every matrix too.
Random random_matrix(std::mt19937& rng) {
  std::uniform_int_distribution<int> size(1, 13), value(-9, 9), coin(0, 2);
  Random r{static_cast<std::uint64_t>(size(rng)), static_cast<std::uint64_t>(size(rng)), {}};
  r.dense.assign(r.rows * r.cols, 0.0);
  for (std::uint64_t i = 0; i < r.rows; ++i) {
    int in_row = 0;
    for (std::uint64_t j = 0; j < r.cols; ++j) {
      int in_block = 0;
      for (std::uint64_t k = j - j % 4; k < j; ++k) in_block += r.dense[i * r.cols + k] != 0;
      const int v = value(rng);
      if (coin(rng) == 0 && v != 0 && in_block < 2 && in_row < 3) r.dense[i * r.cols + j] = v, ++in_row;
    }
  }
  return r;
}

std::vector<std::string> named() {
  std::vector<std::string> names;
  for (const auto& s : shortcuts()) names.push_back(s.name);
  for (const char* extra : {"bsr3x2", "ell5", "3:8",
                            "#sparse_tensor.encoding<{ map = (i, j) -> (j : dense, i : compressed), posWidth "
                            "= 8, crdWidth = 8 }>"})
    names.push_back(extra);
  return names;
}

TEST(SparseProperties, DenseToEncodingToDenseIsIdentity) {
  std::mt19937 rng(14);
  for (int trial = 0; trial < 40; ++trial) {
    const Random r = random_matrix(rng);
    for (const auto& name : named()) {
      const SparseMatrix m = build_dense(r.dense, r.rows, r.cols, parse_encoding(name));
      validate(m);
      EXPECT_EQ(to_dense(m), r.dense) << name << " " << r.rows << "x" << r.cols << " trial " << trial;
    }
  }
}

TEST(SparseProperties, ConvertingThereAndBackGivesTheSameArrays) {
  std::mt19937 rng(41);
  const auto names = named();
  for (int trial = 0; trial < 12; ++trial) {
    const Random r = random_matrix(rng);
    for (const auto& n1 : names)
      for (const auto& n2 : names) {
        const Encoding e1 = parse_encoding(n1), e2 = parse_encoding(n2);
        const SparseMatrix m1 = build_dense(r.dense, r.rows, r.cols, e1);
        const SparseMatrix m2 = convert(m1, e2);
        const SparseMatrix back = convert(m2, e1);
        EXPECT_EQ(to_dense(m2), r.dense) << n1 << " -> " << n2;
        EXPECT_EQ(back.values, m1.values) << n1 << " -> " << n2 << " -> " << n1;
        for (std::size_t l = 0; l < m1.levels.size(); ++l) {
          EXPECT_EQ(back.levels[l].positions, m1.levels[l].positions) << n1 << " -> " << n2 << " level " << l;
          EXPECT_EQ(back.levels[l].coordinates, m1.levels[l].coordinates)
              << n1 << " -> " << n2 << " level " << l;
        }
      }
  }
}

TEST(SparseProperties, PrintParseRoundTripOnRandomMaps) {
  std::mt19937 rng(7);
  const char* formats[] = {"dense", "compressed", "loose_compressed", "compressed(nonordered)",
                           "loose_compressed(nonordered)"};
  std::uniform_int_distribution<int> pick(0, 4), width(0, 4), order(0, 1), block(1, 9);
  const int widths[] = {0, 8, 16, 32, 64};
  for (int trial = 0; trial < 200; ++trial) {
    const bool swap = order(rng) == 1;
    const std::string a = swap ? "j" : "i", b = swap ? "i" : "j";
    std::string map;
    if (pick(rng) < 2) {
      const int k = block(rng);
      map = "(i, j) -> (" + a + " floordiv " + std::to_string(k) + " : " + formats[pick(rng)] + ", " + b +
            " : " + formats[pick(rng)] + ", " + a + " mod " + std::to_string(k) + " : dense)";
    } else {
      map = "(i, j) -> (" + a + " : " + formats[pick(rng)] + ", " + b + " : " + formats[pick(rng)] + ")";
    }
    const std::string text = "map = " + map + ", posWidth = " + std::to_string(widths[width(rng)]) +
                             ", crdWidth = " + std::to_string(widths[width(rng)]);
    const Encoding e = parse_encoding(text);
    const std::string printed = print_encoding(e);
    EXPECT_EQ(parse_encoding(printed), e) << text;
    EXPECT_EQ(print_encoding(parse_encoding(printed)), printed) << text;
  }
}

}  // namespace
}  // namespace treesim::sparse
