// The ternary variant of the default planner: qgemm's search with W packed (K steps of whole byte
// rows, smaller W tiles, the decoder as a pipeline stage), and W's encodings.
#include <gtest/gtest.h>

#include "kernels/tgemm/tgemm.h"
#include "sim/machine/machine_file.h"
#include "sim/numeric/ternary_codec.h"
#include "tests/configs.h"
#include "tests/test_support.h"

namespace treesim::kernels {
namespace {

using testing::config;

QgemmProblem ternary(std::uint64_t m, std::uint64_t n, std::uint64_t k, WeightEncoding e) {
  QgemmProblem p;
  p.m = m, p.n = n, p.k = k;
  p.has_bias = true;
  set_weight_encoding(p, e);
  return p;
}

TEST(TgemmPlan, KStepsAreWholePackedRowsAndTheBuffersFitTheLm) {
  for (const char* name : {"mini", "mncore-board"}) {
    const machine::MachineConfig m = config(name);
    for (WeightEncoding e : kWeightEncodings)
      for (auto [mm, nn, kk] : {std::tuple{37, 50, 129}, {1, 1024, 1000}, {7, 9, 43}}) {
        const QgemmProblem p = ternary(mm, nn, kk, e);
        const QgemmPlan plan = default_plan(p, m);
        EXPECT_EQ(plan.kt % weights_per_byte(e), 0u) << name << " " << to_string(e);
        EXPECT_LE(plan.lm_bytes, m.lm_bytes());
        EXPECT_GE(plan.pk * plan.kt * plan.steps, p.k);
        EXPECT_LE(estimate_lower_bound(p, plan, m), plan.estimated_cycles) << describe(plan, m);
        if (e != WeightEncoding::kInt8) {
          EXPECT_NE(plan.lm_w[0], plan.lm_w[1]);
        }
      }
  }
}

TEST(TgemmPlan, PackedWeightsChangeTheBestTilingOfAMatrixVectorProduct) {
  // W is the whole traffic of a GEMV: packed five to a byte, the planner spreads it differently and
  // expects far fewer cycles.
  const machine::MachineConfig m = config("mini");
  const QgemmPlan dpt = default_plan(ternary(1, 1024, 1000, WeightEncoding::kDpt), m);
  const QgemmPlan int8 = default_plan(ternary(1, 1024, 1000, WeightEncoding::kInt8), m);
  EXPECT_NE(describe(dpt, m), describe(int8, m));
  EXPECT_LT(dpt.estimated_cycles * 3, int8.estimated_cycles);
}

TEST(TgemmEncoding, PackUnpackRoundTripsWithTailPaddingOfZeroWeights) {
  const std::uint64_t k = 13, n = 3;
  std::vector<std::int8_t> w(k * n);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = static_cast<std::int8_t>(static_cast<int>(i * 7 % 3) - 1);
  for (WeightEncoding e : kWeightEncodings) {
    const std::vector<std::uint8_t> bytes = pack_weights(w, k, n, e);
    EXPECT_EQ(bytes.size(), weight_bytes(k, n, e)) << to_string(e);
    EXPECT_EQ(unpack_weights(bytes, k, n, e), w) << to_string(e);
    if (e == WeightEncoding::kInt8) continue;
    // The last byte row holds k mod t real weights; its other slots are weight 0 (trit 1).
    const std::uint64_t t = weights_per_byte(e);
    std::uint8_t slots[8];
    ASSERT_TRUE(numeric::decode_chunk(codec_of(e), bytes[(bytes.size() / n - 1) * n], slots));
    for (std::uint64_t s = k % t; s < t; ++s) EXPECT_EQ(slots[s], 1) << to_string(e) << " slot " << s;
  }
}

TEST(TgemmEncoding, ZeroWeightsBytesDecodeToZeroWeights) {
  for (WeightEncoding e : {WeightEncoding::kDpt, WeightEncoding::kBct, WeightEncoding::kBase3}) {
    std::uint8_t slots[8];
    ASSERT_TRUE(numeric::decode_chunk(codec_of(e), zero_weights_byte(e), slots));
    for (std::uint64_t s = 0; s < weights_per_byte(e); ++s) EXPECT_EQ(slots[s], 1) << to_string(e);
  }
}

}  // namespace
}  // namespace treesim::kernels
