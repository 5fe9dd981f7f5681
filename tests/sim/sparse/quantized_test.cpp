// The host references of the sparse kernels: int8 quantization of A's values, and A·x by walking
// the storage arrays equal, bit for bit, to A·x from the dense matrix, in every named encoding, on
// random and on real matrices.
#include <gtest/gtest.h>

#include <random>

#include "sim/sparse/encoding.h"
#include "sim/sparse/matrix_file.h"
#include "sim/sparse/quantized.h"
#include "tests/test_support.h"

namespace treesim::sparse {
namespace {

TEST(Quantize, SymmetricPerTensorRoundsHalvesAwayFromZero) {
  const QuantizedValues q = quantize_values({-254, 0, 127, 1});
  EXPECT_DOUBLE_EQ(q.scale, 2.0);
  EXPECT_EQ(q.values, (std::vector<std::int8_t>{-127, 0, 64, 1}));
}

TEST(Quantize, AllZerosKeepScaleOne) {
  const QuantizedValues q = quantize_values({0, 0});
  EXPECT_DOUBLE_EQ(q.scale, 1.0);
  EXPECT_EQ(q.values, (std::vector<std::int8_t>{0, 0}));
}

std::vector<std::int8_t> random_x(std::uint64_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int> v(-128, 127);
  std::vector<std::int8_t> x(n);
  for (auto& e : x) e = static_cast<std::int8_t>(v(rng));
  return x;
}

// A·x from the walk in `name` equals the dense product of the same int8 matrix.
void expect_walk_equals_dense(const Coo& coo, const std::string& name, std::mt19937& rng) {
  const SparseMatrix a = build(coo, parse_encoding(name));
  const SparseMatrix q = with_values(a, quantize_values(a.values).values);
  const std::vector<std::int8_t> x = random_x(coo.cols, rng);
  EXPECT_EQ(spmv_walk(q, x), spmv_dense(to_dense(q), q.rows, q.cols, x)) << name;
}

TEST(SpmvReference, WalkEqualsDenseOnRealMatricesInEveryEncoding) {
  std::mt19937 rng(3);
  for (const char* file : {"jgl009.mtx", "pores_1.mtx", "lund_a.rsa", "g20.rua"}) {
    const Coo coo = read_matrix_file(testing::data_path(std::string("sparse/") + file)).coo;
    for (const char* e : {"csr", "csc", "coo", "dcsr", "dcsc", "lcsr", "bsr2x2", "bsr4x4"})
      expect_walk_equals_dense(coo, e, rng);
  }
}

TEST(SpmvReference, WalkEqualsDenseInEllAndTwoFour) {
  std::mt19937 rng(5);
  // 6×12 with at most 2 nonzeros per 1×4 block (2:4 and ell6 hold it).
  Coo coo{6, 12, {}};
  std::uniform_int_distribution<int> v(-100, 100);
  for (std::uint64_t i = 0; i < 6; ++i)
    for (std::uint64_t b = 0; b < 3; ++b) {
      coo.entries.push_back({i, b * 4 + i % 4, static_cast<double>(v(rng))});
      coo.entries.push_back({i, b * 4 + (i + 1) % 4, static_cast<double>(v(rng))});
    }
  for (const char* e : {"2:4", "ell6", "csr", "coo"}) expect_walk_equals_dense(coo, e, rng);
}

}  // namespace
}  // namespace treesim::sparse
