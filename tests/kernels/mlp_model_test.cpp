// The MLP model folder and the host side of `run mlp`: multipliers derived from the scales as
// QuantizeMultiplier does, ReLU as a clamp at the zero point, the first largest logit wins, the
// committed model loads and chains.
#include <gtest/gtest.h>

#include "kernels/mlp/mlp_layer.h"
#include "sim/numeric/fixed_point.h"
#include "tests/test_support.h"

namespace treesim::kernels::mlp {
namespace {

TEST(MlpModel, CommittedInt8ModelChainsItsLayers) {
  const MlpModel m = load_mlp_model(testing::data_path("mlp/int8"));
  ASSERT_EQ(m.layers.size(), 3u);
  EXPECT_EQ(m.layers[0].k, 784u);
  EXPECT_EQ(m.layers[0].n, 256u);
  EXPECT_EQ(m.layers[1].k, 256u);
  EXPECT_EQ(m.layers[2].n, 10u);
  EXPECT_EQ(m.in_dtype(0), core::DType::kUInt8);
  EXPECT_EQ(m.in_dtype(1), core::DType::kInt8);
  EXPECT_EQ(m.in_zero_point(1), m.layers[0].out_zero_point);
}

TEST(MlpModel, OutputStageDerivesOneMultiplierPerChannelFromTheScales) {
  const MlpModel m = load_mlp_model(testing::data_path("mlp/int8"));
  const numeric::OutputStage s = output_stage(m, 1);
  ASSERT_EQ(s.multipliers.size(), 128u);
  const double real = static_cast<double>(m.layers[0].out_scale) *
                      static_cast<double>(m.layers[1].weight_scale[5]) /
                      static_cast<double>(m.layers[1].out_scale);
  EXPECT_EQ(s.multipliers[5], numeric::quantize_multiplier(real));
}

TEST(MlpModel, ReluClampsAtTheZeroPointAndTheLastLayerDoesNot) {
  const MlpModel m = load_mlp_model(testing::data_path("mlp/int8"));
  EXPECT_EQ(output_stage(m, 0).act_min, m.layers[0].out_zero_point);
  EXPECT_EQ(output_stage(m, 2).act_min, -128);
  EXPECT_EQ(output_stage(m, 2).act_max, 127);
}

TEST(MlpModel, TernaryModelHoldsOnlyMinusOneZeroAndOne) {
  const MlpModel m = load_mlp_model(testing::data_path("mlp/ternary"));
  for (const MlpLayer& l : m.layers) {
    EXPECT_TRUE(l.ternary);
    for (std::int8_t w : l.weights) EXPECT_TRUE(w >= -1 && w <= 1);
  }
}

TEST(MlpPredictions, FirstLargestLogitWins) {
  EXPECT_EQ(predictions({1, 5, 5, -3, /* row 2 */ -128, -128, -128, -128}, 4),
            (std::vector<std::uint32_t>{1, 0}));
}

TEST(MlpHostForward, LastLayerGivesTenLogitsPerImage) {
  const MlpModel m = load_mlp_model(testing::data_path("mlp/int8"));
  const std::vector<std::uint8_t> zeros(2 * 784, 0);
  const auto out = host_forward(m, zeros.data(), 2);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[2].size(), 20u);
  // Two equal (black) images give equal logits.
  EXPECT_TRUE(std::equal(out[2].begin(), out[2].begin() + 10, out[2].begin() + 10));
}

TEST(MlpModel, TernaryKindWithInt8WeightsIsRefused) {
  const std::string dir = testing::temp_path("int8-as-ternary");
  ASSERT_EQ(std::system(("mkdir -p " + dir + " && cp " + testing::data_path("mlp/int8") + "/* " + dir +
                         " && sed -i '0,/kind: int8/s//kind: ternary/' " + dir + "/model.yaml")
                            .c_str()),
            0);
  try {
    load_mlp_model(dir);
    FAIL();
  } catch (const MlpModelError& e) {
    EXPECT_EQ(std::string(e.what()), dir +
                                         "/model.yaml:8: field 'layers[0].weights': expected ternary weights "
                                         "(-1, 0, +1) for kind ternary");
  }
}

}  // namespace
}  // namespace treesim::kernels::mlp
