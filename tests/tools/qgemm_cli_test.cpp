// `treesim run qgemm`: bit-exact against the host reference over dtypes, zero points, per-tensor
// and per-channel requantization, bias, ReLU6, ragged shapes and K split over the tree, on mini
// and on the board; never faster than the roofline; layouts change cycles and traffic.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>

#include "sim/io/npy.h"
#include "sim/numeric/fixed_point.h"
#include "sim/numeric/qgemm_reference.h"
#include "tests/test_support.h"
#include "tests/tools/verified_run.h"

namespace treesim {
namespace {

using testing::run_treesim;
using testing::source_path;

nlohmann::json run_qgemm(const std::string& machine, std::vector<std::string> extra) {
  nlohmann::json j = testing::run_verified("qgemm", machine, extra);
  if (j.is_null()) return j;
  const std::string all = testing::joined(extra);
  EXPECT_EQ(j["verify"]["mismatches"], 0) << all;
  EXPECT_GE(j["cycles"].get<std::uint64_t>(), j["roofline"]["cycles"].get<std::uint64_t>()) << all;
  return j;
}

const std::vector<std::vector<std::string>> kVariants = {
    {"--dtype-a", "u8", "--dtype-b", "u8", "--dtype-out", "u8"},  // zero points 128
    {"--dtype-a", "u8", "--dtype-b", "u8", "--a-zero", "0", "--b-zero", "0", "--dtype-out", "u8",
     "--out-zero", "0"},
    {"--dtype-a", "s8", "--dtype-b", "s8"},  // zero points 0
    {"--dtype-a", "s8", "--dtype-b", "s8", "--a-zero", "-7", "--b-zero", "12", "--out-zero", "-3"},
    {"--per-channel"},
    {"--per-channel", "--dtype-a", "u8", "--dtype-b", "u8", "--act", "relu6", "--dtype-out", "u8"},
    {"--no-bias", "--act", "relu6"},
    {"--no-bias", "--per-channel", "--dtype-a", "u8", "--a-zero", "3"},
    {"--rounding", "float", "--per-channel", "--dtype-a", "u8", "--dtype-out", "u8"},  // ONNX Runtime's
    {"--rounding", "float", "--act", "relu"},
};

void run_variants(const std::string& machine, const std::vector<std::string>& shape) {
  for (const auto& v : kVariants) {
    std::vector<std::string> args = shape;
    args.insert(args.end(), v.begin(), v.end());
    run_qgemm(machine, args);
  }
}

TEST(QgemmCli, RaggedShapeIsBitExactOnMini) {
  run_variants("mini", {"--m", "37", "--n", "50", "--k", "129"});
}

TEST(QgemmCli, RaggedShapeIsBitExactOnTheBoard) {
  run_variants("mncore-board", {"--m", "37", "--n", "50", "--k", "129"});
}

// --dtype-out s32 (ONNX's MatMulInteger): C is the int32 accumulators, stored from the two
// accumulator buffers across passes, and after the K reduce.
TEST(QgemmCli, Int32AccumulatorsAreBitExactOverPassesAndKSplits) {
  run_qgemm("mini", {"--m", "1000", "--n", "700", "--k", "300", "--dtype-out", "s32", "--dtype-a", "u8"});
  run_qgemm("mini", {"--m", "128", "--n", "1000", "--k", "5000", "--dtype-out", "s32", "--layout-a",
                     "((2_L1B,64:1250),(4_PE,1250:1))"});
  run_qgemm("mncore-board", {"--m", "37", "--n", "50", "--k", "129", "--dtype-out", "s32"});
}

TEST(QgemmCli, Int32OutputsRefuseRequantOptions) {
  const testing::CliResult r =
      run_treesim({"run", "qgemm", "--machine", source_path("configs/mini.yaml"), "--m", "4", "--n", "4",
                   "--k", "4", "--dtype-out", "s32", "--act", "relu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "treesim: --act: has no meaning with --dtype-out s32 (no requant)\n");
}

// One column drawn per channel is a per-tensor multiplier the program holds: it must be the drawn
// one, which the reference uses too.
TEST(QgemmCli, OneColumnPerChannelIsBitExact) {
  run_qgemm("mini", {"--m", "9", "--n", "1", "--k", "33", "--per-channel"});
  run_qgemm("mini", {"--m", "9", "--n", "1", "--k", "33", "--per-channel", "--no-bias"});
}

TEST(QgemmCli, KSplitAcrossPesIsReducedUpTheTreeOnMini) {
  // K over the 4 PEs of every MAB: partial sums meet at the MABs (which forward, not sum: the PE
  // of each MAB that keeps C adds them).
  for (const auto& v : kVariants) {
    std::vector<std::string> args{
        "--m", "37",  "--n",        "50",
        "--k", "129", "--layout-a", "(37,129)/((2_L1B, 4_MAB, 5:33), (4_PE, 33:1))"};
    args.insert(args.end(), v.begin(), v.end());
    nlohmann::json j = run_qgemm("mini", args);
    EXPECT_NE(j["info"]["plan"].get<std::string>().find("reduced at MAB"), std::string::npos);
    EXPECT_EQ(j["instructions"]["reduce"]["count"], j["passes"]);  // one per pass
  }
}

TEST(QgemmCli, KSplitOverTwoLevelsIsReducedAtL1BOnTheBoard) {
  nlohmann::json j =
      run_qgemm("mncore-board", {"--m", "37", "--n", "50", "--k", "300", "--per-channel", "--a-zero", "5",
                                 "--layout-a", "(37,300)/((16_L2B, 8_L1B, 1:5), (16_MAB, 4_PE, 5:1))"});
  EXPECT_NE(j["info"]["plan"].get<std::string>().find("reduced at L1B"), std::string::npos);
}

TEST(QgemmCli, KSplitOverTheWholeMachineIsReducedAtTheBoard) {
  nlohmann::json j = run_qgemm("mini", {"--m", "5", "--n", "6", "--k", "257", "--a-zero", "9", "--layout-a",
                                        "(5,257)/((5:9), (1_L2B, 2_L1B, 4_MAB, 4_PE, 9:1))"});
  EXPECT_NE(j["info"]["plan"].get<std::string>().find("reduced at board"), std::string::npos);
}

TEST(QgemmCli, ManyPassesAndStepsOnMini) {
  // C does not fit the PEs at once: several passes, each streaming K in several steps.
  nlohmann::json j =
      run_qgemm("mini", {"--m", "300", "--n", "260", "--k", "700", "--per-channel", "--dtype-a", "u8"});
  EXPECT_GT(j["passes"].get<int>() * j["k_steps"].get<int>(), 2);
}

TEST(QgemmCli, RowPiecesWithARaggedLastPassAreBitExactOnMini) {
  // Two passes of 32×16 rows stored in 4 pieces of 128 rows (a plan file asks for twice the passes
  // the LM needs and 4 K steps); the second pass has 489 rows, so its last piece is cut at the edge.
  const std::string plan = testing::temp_path("row-pieces.yaml");
  std::ofstream(plan) << "kernel: qgemm\nmachine: mini\nm: 1001\nn: 64\nk: 512\n"
                         "split: {M: [L1B, MAB, PE], N: [], K: []}\n"
                         "m_passes_factor: 2\nmin_k_steps: 4\n";
  for (const auto& v : {std::vector<std::string>{"--per-channel"}, kVariants[1]}) {
    std::vector<std::string> args{"--m", "1001", "--n", "64", "--k", "512", "--plan-file", plan};
    args.insert(args.end(), v.begin(), v.end());
    nlohmann::json j = run_qgemm("mini", args);
    EXPECT_NE(j["info"]["plan"].get<std::string>().find("in 2×1 passes, stored in 4 row pieces"),
              std::string::npos)
        << j["info"]["plan"];
    EXPECT_EQ(j["instructions"]["store"]["count"], 4 + 4);  // both passes in pieces (the last: tail pieces)
  }
}

TEST(QgemmCli, ARaggedLastBlockWithoutItsPaddingPiecesIsBitExactOnMini) {
  // Two passes of 32×16 rows in 16 one-row pieces; the second has 478 rows, 15 pieces: its MACs,
  // requants and stores leave the last piece out.
  const std::string plan = testing::temp_path("ragged.yaml");
  std::ofstream(plan) << "kernel: qgemm\nmachine: mini\nm: 990\nn: 64\nk: 512\n"
                         "split: {M: [L1B, MAB, PE], N: [], K: []}\n"
                         "m_passes_factor: 2\nmin_k_steps: 16\n";
  for (const auto& v : {std::vector<std::string>{"--per-channel"}, kVariants[3]}) {
    std::vector<std::string> args{"--m", "990", "--n", "64", "--k", "512", "--plan-file", plan};
    args.insert(args.end(), v.begin(), v.end());
    nlohmann::json j = run_qgemm("mini", args);
    EXPECT_NE(j["info"]["plan"].get<std::string>().find("in 2×1 passes, stored in 16 row pieces"),
              std::string::npos)
        << j["info"]["plan"];
    // 32 units × (16 + 15) rows: 992 rows computed for 990 (1024 with the last piece).
    EXPECT_EQ(j["work"]["padding_macs"], (992 - 990) * 64 * 512) << j["work"];
  }
}

TEST(QgemmCli, ALevelSharedByMAndNIsBitExactWithKSplitOverThePes) {
  // MAB's 4 units as 2 (M) × 2 (N): A copied over N's digit, B over M's; K over the PEs, reduced
  // at the MABs.
  for (const auto& v : kVariants) {
    std::vector<std::string> args{"--m",        "100",
                                  "--n",        "70",
                                  "--k",        "300",
                                  "--layout-a", "((2_L1B, 2_MAB:2, 25:75), (4_PE, 75:1); B@[2_MAB:1])",
                                  "--layout-b", "((4_PE, 75:35), (2_MAB:1, 35:1); B@[2_MAB:2])"};
    args.insert(args.end(), v.begin(), v.end());
    nlohmann::json j = run_qgemm("mini", args);
    EXPECT_NE(j["info"]["plan"].get<std::string>().find("MAB→M×N (2×2)"), std::string::npos)
        << j["info"]["plan"];
  }
}

TEST(QgemmCli, ALevelSharedByMAndNIsBitExactOverPassesWithAnOperandKept) {
  // A plan file shares MAB as 2 × 2 over 2×2 passes, keeping B and then A.
  for (const char* kept : {"B", "A"}) {
    const std::string plan = testing::temp_path(std::string("shared-") + kept + ".yaml");
    std::ofstream(plan) << "kernel: qgemm\nmachine: mini\nm: 333\nn: 200\nk: 300\n"
                           "split: {M: [L1B, MAB/2, PE], N: [MAB/2], K: []}\n"
                           "m_passes_factor: 2\npass_splits: 1\nmin_k_steps: 3\nstationary: "
                        << kept << "\n";
    nlohmann::json j =
        run_qgemm("mini", {"--m", "333", "--n", "200", "--k", "300", "--per-channel", "--plan-file", plan});
    EXPECT_NE(j["info"]["plan"].get<std::string>().find(std::string(kept) + " kept"), std::string::npos)
        << j["info"]["plan"];
    EXPECT_GT(j["passes"].get<std::uint64_t>(), 1u);
  }
}

TEST(QgemmCli, ASharedLevelWrittenWithOtherStridesIsRefused) {
  const auto r =
      run_treesim({"run", "qgemm", "--machine", source_path("configs/mini.yaml"), "--m", "100", "--n", "70",
                   "--k", "300", "--layout-a", "((2_L1B, 2_MAB:1, 25:75), (4_PE, 75:1); B@[2_MAB:2])",
                   "--layout-b", "((4_PE, 75:35), (2_MAB:1, 35:1); B@[2_MAB:2])", "--plan"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "treesim: --layout-a: 2_MAB:1 has stride 1; a level that splits M and N (u_m × u_n units) is "
            "written u_m_L:u_n along M and u_n_L:1 along N, and this operand copied B@[2_MAB:1]\n");
}

TEST(QgemmCli, UsefulMacsAreMTimesNTimesKApartFromThePaddingIssued) {
  const double kMacPj = 0.2;  // configs/mini.yaml's energy.mac_int8_pj
  // 37×50×129 on mini pads its tiles: the MACs issued exceed M·N·K; the report tells them apart and
  // prices MAC energy by the useful ones.
  nlohmann::json j = run_qgemm("mini", {"--m", "37", "--n", "50", "--k", "129"});
  const std::uint64_t useful = 37 * 50 * 129, issued = j["work"]["macs"];
  EXPECT_EQ(j["work"]["useful_macs"], useful);
  EXPECT_GT(issued, useful);
  EXPECT_EQ(j["work"]["padding_macs"], issued - useful);
  ASSERT_TRUE(j.contains("energy_pj"));
  EXPECT_DOUBLE_EQ(j["energy_pj"]["mac"].get<double>(), kMacPj * static_cast<double>(useful));
}

TEST(QgemmCli, ColumnBlocksReloadTheirVectorsIntoAlternateBuffersOnMini) {
  // 8 column blocks, per-channel multipliers and shifts and a bias reloaded for each, K reduced.
  nlohmann::json j = run_qgemm("mini", {"--m", "200", "--n", "1500", "--k", "513", "--per-channel",
                                        "--layout-a", "(200,513)/((4_MAB, 50:513), (4_PE, 129:1))"});
  EXPECT_NE(j["info"]["plan"].get<std::string>().find("in 1×8 passes"), std::string::npos)
      << j["info"]["plan"];
}

TEST(QgemmCli, CyclesNeverBeatTheRooflineOverAGridOfShapes) {
  for (int m : {1, 16, 61})
    for (int n : {3, 64})
      for (int k : {1, 100, 512})
        run_qgemm("mini", {"--m", std::to_string(m), "--n", std::to_string(n), "--k", std::to_string(k)});
  for (int s : {8, 128, 520})
    run_qgemm("mncore-board", {"--m", std::to_string(s), "--n", "96", "--k", "300"});
}

TEST(QgemmCli, DifferentLayoutsGiveDifferentCyclesAndTraffic) {
  std::vector<std::string> shape{"--m", "256", "--n", "256", "--k", "256"};
  auto with = [&](std::vector<std::string> layout) {
    std::vector<std::string> args = shape;
    args.insert(args.end(), layout.begin(), layout.end());
    return run_qgemm("mini", args);
  };
  // Rows over every unit (all of B broadcast to all 32 PEs: the MAB→PE ports bound the run) versus
  // a 2-D split (M over MAB×PE, N over L1B: half of B per PE, the MAC arrays bound the run). Which is
  // faster is the planner's business (rows keep A in the LM over four N passes and win).
  nlohmann::json rows =
      with({"--layout-a", "((2_L1B, 4_MAB, 4_PE, 8:256), (256:1))", "--layout-b", "((256:256), (256:1))"});
  nlohmann::json grid =
      with({"--layout-a", "((4_MAB, 4_PE, 16:256), (256:1))", "--layout-b", "((256:128), (2_L1B, 128:1))"});
  EXPECT_EQ(rows["roofline"]["resource"], "PE.down");
  EXPECT_EQ(grid["roofline"]["resource"], "mac");
  EXPECT_NE(rows["cycles"], grid["cycles"]);
  EXPECT_NE(rows["levels"]["PE"]["down_delivered_bytes"], grid["levels"]["PE"]["down_delivered_bytes"]);
  EXPECT_FALSE(rows["roofline"]["resource"].get<std::string>().empty());
}

TEST(QgemmCli, NpyInputsAndQuantFileMatchTheReference) {
  const std::uint64_t M = 21, N = 10, K = 33;
  std::vector<std::uint8_t> a(M * K), b(K * N);
  std::vector<std::int32_t> bias(N);
  for (std::uint64_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint8_t>((i * 53 + 7) % 256);
  for (std::uint64_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::uint8_t>((i * 29 + 3) % 256);
  for (std::uint64_t i = 0; i < N; ++i) bias[i] = static_cast<std::int32_t>(i * 1000) - 4000;
  io::write_npy(testing::temp_path("a.npy"), io::make_npy({M, K}, a));
  io::write_npy(testing::temp_path("b.npy"), io::make_npy({K, N}, b));
  io::write_npy(testing::temp_path("bias.npy"), io::make_npy({N}, bias));
  std::string quant = testing::write_temp_file("q.yaml",
                                               "a_zero_point: 120\nb_zero_point: 130\nout_zero_point: 10\n"
                                               "out_dtype: uint8\nact_min: 10\nact_max: 250\n"
                                               "a_scale: 0.02\nb_scale: 0.01\nout_scale: 0.5\n");
  std::string out = testing::temp_path("c.npy");
  auto r =
      run_treesim({"run", "qgemm", "--machine", source_path("configs/mini.yaml"), "--a",
                   testing::temp_path("a.npy"), "--b", testing::temp_path("b.npy"), "--bias",
                   testing::temp_path("bias.npy"), "--quant", quant, "--out", out, "--verify", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The reference here is computed independently of the CLI from the same files.
  numeric::QGemmParams p;
  p.M = M, p.N = N, p.K = K;
  p.a_dtype = p.b_dtype = core::DType::kUInt8;
  p.a_zero_point = 120, p.b_zero_point = 130;
  p.out.out_dtype = core::DType::kUInt8;
  p.out.out_zero_point = 10, p.out.act_min = 10, p.out.act_max = 250;
  // The quantization file forms a·b in float32 for uint8 outputs (TFLite's uint8 path).
  p.out.multipliers = {
      numeric::quantize_multiplier(static_cast<double>(0.02f * 0.01f) / static_cast<double>(0.5f))};
  std::vector<std::int32_t> ai(a.begin(), a.end()), bi(b.begin(), b.end());
  std::vector<std::int32_t> expect = numeric::reference_qgemm(p, ai, bi, bias);
  io::NpyArray c = io::read_npy(out);
  ASSERT_EQ(c.shape, (std::vector<std::uint64_t>{M, N}));
  ASSERT_EQ(c.dtype, core::DType::kUInt8);
  for (std::uint64_t i = 0; i < M * N; ++i) ASSERT_EQ(int(c.bytes[i]), expect[i]) << i;
}

TEST(QgemmCli, WrongNpyShapeIsAClearError) {
  io::write_npy(testing::temp_path("a2.npy"),
                io::make_npy<std::uint8_t>({4, 5}, std::vector<std::uint8_t>(20)));
  io::write_npy(testing::temp_path("b2.npy"),
                io::make_npy<std::uint8_t>({6, 3}, std::vector<std::uint8_t>(18)));
  std::string quant = testing::write_temp_file("q2.yaml", "multiplier: 1073741824\nshift: 0\n");
  std::string out = testing::temp_path("never.npy");
  auto r = run_treesim({"run", "qgemm", "--machine", source_path("configs/mini.yaml"), "--a",
                        testing::temp_path("a2.npy"), "--b", testing::temp_path("b2.npy"), "--quant", quant,
                        "--out", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("b2.npy: shape (6, 3) gives K = 6, but K = 5 elsewhere"), std::string::npos) << r.err;
  EXPECT_FALSE(std::ifstream(out).good());
}

TEST(QgemmCli, InvalidLayoutIsRejectedWithItsCode) {
  auto r = run_treesim({"run", "qgemm", "--machine", source_path("configs/mini.yaml"), "--m", "40", "--n",
                        "8", "--k", "8", "--layout-a", "((8_PE, 5:8), (8:1))"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("E050"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("^"), std::string::npos) << r.err;
}

TEST(QgemmCli, MissingSizesAreAClearError) {
  auto r = run_treesim({"run", "qgemm", "--machine", source_path("configs/mini.yaml"), "--m", "40"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "treesim: --n and --k are missing: give --m, --n and --k (or --a/--b/--quant files)\n");
}

}  // namespace
}  // namespace treesim
