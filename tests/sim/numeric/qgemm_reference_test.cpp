// The reference quantized GEMMs against the whole-GEMM vectors of tests/data/quant/vectors.json.
#include "sim/numeric/qgemm_reference.h"

#include <gtest/gtest.h>

#include "sim/numeric/onednn_reference.h"
#include "tests/sim/numeric/test_vectors.h"

namespace treesim::numeric {
namespace {

using nlohmann::json;

std::vector<std::int32_t> flatten(const json& matrix) {
  std::vector<std::int32_t> v;
  for (const json& row : matrix)
    for (const json& x : row) v.push_back(x.get<std::int32_t>());
  return v;
}

QGemmParams tflite_params(const json& g, Rounding rounding) {
  QGemmParams p;
  p.M = g["M"];
  p.N = g["N"];
  p.K = g["K"];
  p.a_dtype = p.b_dtype = *core::parse_dtype(g["dtype"].get<std::string>());
  p.a_zero_point = g["a_zero_point"];
  p.b_zero_point = g["b_zero_point"];
  p.out.out_dtype = p.a_dtype;
  p.out.out_zero_point = g["out_zero_point"];
  p.out.act_min = g["act_min"];
  p.out.act_max = g["act_max"];
  p.out.rounding = rounding;
  p.out.multipliers.clear();
  for (std::size_t c = 0; c < g["multiplier"].size(); ++c)
    p.out.multipliers.push_back({g["multiplier"][c].get<std::int32_t>(), g["shift"][c].get<int>()});
  return p;
}

std::vector<std::int32_t> bias_of(const json& g) {
  return g["bias"].is_null() ? std::vector<std::int32_t>{} : g["bias"].get<std::vector<std::int32_t>>();
}

TEST(ReferenceQGemm, AccumulatorsMatchEveryTfLiteCase) {
  for (const json& g : testing::quant_vectors()["gemm_tflite"]) {
    const QGemmParams p = tflite_params(g, Rounding::kDouble);
    EXPECT_EQ(reference_qgemm_acc(p, flatten(g["A"]), flatten(g["B"]), bias_of(g)), flatten(g["acc"]))
        << g["name"];
  }
}

TEST(ReferenceQGemm, OutputsMatchEveryTfLiteCaseInEveryRoundingMode) {
  for (const json& g : testing::quant_vectors()["gemm_tflite"]) {
    for (Rounding mode : {Rounding::kDouble, Rounding::kSingle, Rounding::kDoubleUpward}) {
      const QGemmParams p = tflite_params(g, mode);
      EXPECT_EQ(reference_qgemm(p, flatten(g["A"]), flatten(g["B"]), bias_of(g)),
                flatten(g["expected"][to_string(mode)]))
          << g["name"] << " " << to_string(mode);
    }
  }
}

// The vectors' decomposition of eq. 7, recomputed independently from A and B.
TEST(ReferenceQGemm, AccDecompositionTermsAgreeWithTheVectors) {
  for (const json& g : testing::quant_vectors()["gemm_tflite"]) {
    const json& d = g["acc_decomposition"];
    const std::size_t M = g["M"], N = g["N"], K = g["K"];
    const auto A = flatten(g["A"]), B = flatten(g["B"]);
    for (std::size_t m = 0; m < M; ++m) {
      std::int64_t row = 0;
      for (std::size_t k = 0; k < K; ++k) row += A[m * K + k];
      EXPECT_EQ(row, d["row_sums_A"][m].get<std::int64_t>()) << g["name"];
    }
    for (std::size_t n = 0; n < N; ++n) {
      std::int64_t col = 0;
      for (std::size_t k = 0; k < K; ++k) col += B[k * N + n];
      EXPECT_EQ(col, d["col_sums_B"][n].get<std::int64_t>()) << g["name"];
    }
  }
}

TEST(ReferenceQGemm, RejectsCodesOutsideTheInputType) {
  QGemmParams p;
  p.M = p.N = p.K = 1;
  p.a_dtype = DType::kInt8;
  EXPECT_THROW(reference_qgemm(p, {200}, {1}), QuantError);
  p.a_dtype = DType::kUInt8;
  EXPECT_NO_THROW(reference_qgemm(p, {200}, {1}));
  p.b_zero_point = 128;  // outside int8
  EXPECT_THROW(reference_qgemm(p, {200}, {1}), QuantError);
}

TEST(ReferenceQGemm, RejectsMismatchedSizes) {
  QGemmParams p;
  p.M = 2;
  p.N = 2;
  p.K = 3;
  EXPECT_THROW(reference_qgemm(p, std::vector<std::int32_t>(5), std::vector<std::int32_t>(6)), QuantError);
  EXPECT_THROW(reference_qgemm(p, std::vector<std::int32_t>(6), std::vector<std::int32_t>(6), {1, 2, 3}),
               QuantError);
  p.out.multipliers.assign(3, {1 << 30, 0});  // neither 1 nor N
  EXPECT_THROW(reference_qgemm(p, std::vector<std::int32_t>(6), std::vector<std::int32_t>(6)), QuantError);
}

TEST(ReferenceQGemm, ReportsAnAccumulatorThatOverflowsInt32) {
  QGemmParams p;
  p.M = p.N = 1;
  p.K = 2;
  p.a_dtype = p.b_dtype = DType::kInt8;
  const std::vector<std::int32_t> bias{std::numeric_limits<std::int32_t>::max()};
  EXPECT_THROW(reference_qgemm_acc(p, {1, 0}, {1, 0}, bias), QuantError);
  EXPECT_NO_THROW(reference_qgemm_acc(p, {0, 0}, {1, 0}, bias));
}

TEST(ReferenceQGemm, ReportsARequantizationOutsideItsContract) {
  QGemmParams p;
  p.M = p.N = p.K = 1;
  p.out.multipliers = {{1 << 30, 31}};  // any accumulator but 0 and −1 overflows the left shift
  EXPECT_THROW(reference_qgemm(p, {5}, {5}), QuantError);
}

OneDnnGemmParams onednn_params(const json& g, bool fold) {
  OneDnnGemmParams p;
  p.M = g["M"];
  p.N = g["N"];
  p.K = g["K"];
  const auto dt = [](const json& s) {
    return s == "u8" ? DType::kUInt8 : s == "s8" ? DType::kInt8 : DType::kInt32;
  };
  p.src_dtype = dt(g["src_dt"]);
  p.wei_dtype = dt(g["wei_dt"]);
  p.dst_dtype = dt(g["dst_dt"]);
  p.src_zero_point = g["src_zero_point"];
  p.wei_zero_point = g["wei_zero_point"];
  p.dst_zero_point = g["dst_zero_point"];
  p.src_scale = g["src_scale"].get<float>();
  p.wei_scales = g["wei_scales"].get<std::vector<float>>();
  p.dst_scale = g["dst_scale"].get<float>();
  for (const json& op : g["post_ops"]) {
    OneDnnPostOp o;
    o.kind = op["kind"] == "clip" ? OneDnnPostOp::Kind::kClip : OneDnnPostOp::Kind::kRelu;
    o.alpha = op.value("alpha", 0.0f);
    o.beta = op.value("beta", 0.0f);
    p.post_ops.push_back(o);
  }
  p.fold_scales = fold;
  return p;
}

TEST(ReferenceQGemmOneDnn, MatchesEveryOneDnnCaseInMatmulAndConvScaleOrder) {
  for (const json& g : testing::quant_vectors()["gemm_onednn"]) {
    const auto bias = g["bias_f32"].get<std::vector<float>>();
    EXPECT_EQ(reference_qgemm_onednn(onednn_params(g, false), flatten(g["A"]), flatten(g["B"]), bias),
              flatten(g["expected"]))
        << g["name"];
    EXPECT_EQ(reference_qgemm_onednn(onednn_params(g, true), flatten(g["A"]), flatten(g["B"]), bias),
              flatten(g["expected_conv_scale_order"]))
        << g["name"];
  }
}

TEST(ReferenceQGemmOneDnn, AccumulatorsMatchEveryOneDnnCase) {
  for (const json& g : testing::quant_vectors()["gemm_onednn"]) {
    const OneDnnGemmParams o = onednn_params(g, false);
    QGemmParams p;
    p.M = o.M;
    p.N = o.N;
    p.K = o.K;
    p.a_dtype = o.src_dtype;
    p.b_dtype = o.wei_dtype;
    p.a_zero_point = o.src_zero_point;
    p.b_zero_point = o.wei_zero_point;
    EXPECT_EQ(reference_qgemm_acc(p, flatten(g["A"]), flatten(g["B"])), flatten(g["acc_s32"])) << g["name"];
  }
}

}  // namespace
}  // namespace treesim::numeric
