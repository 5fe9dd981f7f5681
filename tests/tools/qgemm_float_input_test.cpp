// `treesim run qgemm` with float16/float32 --a/--b: quantized on load with the quantization file's
// scales and zero points (A per tensor, B per tensor or per output column), the result equal to the
// run on the codes quantized by hand; missing scales are a one-line error.
#include <gtest/gtest.h>

#include "sim/io/npy.h"
#include "tests/test_support.h"

namespace treesim {
namespace {

using testing::run_treesim;
using testing::source_path;
using testing::temp_path;

std::vector<std::string> qgemm(const std::string& a, const std::string& b, const std::string& quant,
                               const std::string& out) {
  return {"run",      "qgemm",  "--machine", source_path("configs/mini.yaml"),
          "--a",      a,        "--b",       b,
          "--quant",  quant,    "--out",     out,
          "--verify", "--quiet"};
}

TEST(QgemmFloatInput, Float32OperandsEqualTheirCodesQuantizedByHand) {
  // A: scale 0.5, zero point 3 (s8): 0.25 → 1 + 3 = 4 (a tie, away from zero), −1.0 → −2 + 3 = 1, ...
  const std::vector<float> a_real{0.25f, -1.0f, 2.0f, -0.75f, 100.0f, 0.0f};
  const std::vector<std::int8_t> a_codes{4, 1, 7, 1, 127, 3};
  // B (3×2) per column: scales 1 and 0.25, zero point 0.
  const std::vector<float> b_real{1.5f, 1.5f, -2.0f, -0.125f, 0.0f, 0.5f};
  const std::vector<std::int8_t> b_codes{2, 6, -2, -1, 0, 2};
  io::write_npy(temp_path("fa.npy"), io::make_npy({2, 3}, a_real));
  io::write_npy(temp_path("fb.npy"), io::make_npy({3, 2}, b_real));
  io::write_npy(temp_path("qa.npy"), io::make_npy({2, 3}, a_codes));
  io::write_npy(temp_path("qb.npy"), io::make_npy({3, 2}, b_codes));
  const std::string quant = testing::write_temp_file(
      "fq.yaml", "a_zero_point: 3\na_scale: 0.5\nb_scale: [1.0, 0.25]\nout_scale: 0.05\n");
  const auto f = run_treesim(qgemm(temp_path("fa.npy"), temp_path("fb.npy"), quant, temp_path("fc.npy")));
  ASSERT_EQ(f.exit_code, 0) << f.err;
  const auto q = run_treesim(qgemm(temp_path("qa.npy"), temp_path("qb.npy"), quant, temp_path("qc.npy")));
  ASSERT_EQ(q.exit_code, 0) << q.err;
  EXPECT_EQ(io::read_npy(temp_path("fc.npy")).bytes, io::read_npy(temp_path("qc.npy")).bytes);
}

TEST(QgemmFloatInput, FloatOperandWithoutScalesIsOneLineError) {
  io::write_npy(temp_path("fa2.npy"), io::make_npy<float>({1, 2}, {1.0f, 2.0f}));
  io::write_npy(temp_path("qb2.npy"), io::make_npy<std::int8_t>({2, 1}, {1, 1}));
  const std::string quant = testing::write_temp_file("mq.yaml", "multiplier: 1073741824\nshift: 0\n");
  const auto r =
      run_treesim(qgemm(temp_path("fa2.npy"), temp_path("qb2.npy"), quant, temp_path("never.npy")));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "treesim: " + temp_path("fa2.npy") +
                       ": float32 values are quantized on load: the quantization file must give a_scale (and "
                       "a_scale, b_scale, out_scale)\n");
}

}  // namespace
}  // namespace treesim
