// `treesim run tgemm`: bit-exact against the host reference (the plain codec, then the int8
// reference GEMM) for every weight encoding, per-tensor and per-channel, odd shapes and K not a
// multiple of 5, on mini and on the board; DPT's DRAM weight bytes against int8's and BCT's; a
// memory-bound shape faster with DPT than with int8 weights; inputs from files and their errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>

#include "sim/io/npy.h"
#include "sim/numeric/dpt_file.h"
#include "sim/numeric/fixed_point.h"
#include "sim/numeric/qgemm_reference.h"
#include "sim/numeric/ternary_tensor.h"
#include "tests/test_support.h"
#include "tests/tools/verified_run.h"

namespace treesim {
namespace {

using testing::run_treesim;
using testing::source_path;

const char* const kTernaryEncodings[] = {"dpt", "bct", "base3", "int8"};

nlohmann::json run_tgemm(const std::string& machine, std::vector<std::string> extra) {
  nlohmann::json j = testing::run_verified("tgemm", machine, extra);
  if (j.is_null()) return j;
  const std::string all = testing::joined(extra);
  EXPECT_EQ(j["verify"]["mismatches"], 0) << all;
  EXPECT_GE(j["cycles"].get<std::uint64_t>(), j["roofline"]["cycles"].get<std::uint64_t>()) << all;
  return j;
}

const std::vector<std::vector<std::string>> kShapes = {
    {"--m", "7", "--n", "9", "--k", "43"},      // odd M, N, K; K not a multiple of 5 (nor of 4)
    {"--m", "1", "--n", "33", "--k", "101"},    // a matrix-vector product
    {"--m", "37", "--n", "19", "--k", "1003"},  // several K steps on mini
};
const std::vector<std::vector<std::string>> kTgemmVariants = {
    {},
    {"--per-channel"},
    {"--per-channel", "--dtype-a", "u8", "--dtype-out", "u8", "--no-bias"},
    {"--dtype-a", "u8", "--a-zero", "77"},
};

void run_variant(const std::string& machine, const char* encoding, const std::vector<std::string>& shape,
                 const std::vector<std::string>& variant) {
  std::vector<std::string> args = shape;
  args.insert(args.end(), variant.begin(), variant.end());
  args.insert(args.end(), {"--weight-encoding", encoding});
  run_tgemm(machine, args);
}

// Mini: every encoding × shape × variant.
TEST(TgemmCli, BitExactForEveryEncodingOnMini) {
  for (const char* e : kTernaryEncodings)
    for (const auto& shape : kShapes)
      for (const auto& v : kTgemmVariants) run_variant("mini", e, shape, v);
}

// The board: every encoding with every shape, the variants rotated over those twelve runs (each
// variant runs three times, with three encodings): a quarter of mini's runs, as each run pays for
// elaborating 8,192 PEs.
TEST(TgemmCli, BitExactForEveryEncodingOnTheBoard) {
  std::size_t i = 0;
  for (const char* e : kTernaryEncodings)
    for (const auto& shape : kShapes)
      run_variant("mncore-board", e, shape, kTgemmVariants[i++ % kTgemmVariants.size()]);
}

TEST(TgemmCli, BitExactWithKSplitOverTheTree) {
  for (const char* e : kTernaryEncodings)
    run_tgemm("mini", {"--m", "16", "--n", "24", "--k", "303", "--layout-a", "((4_MAB, 4:303), (303:1))",
                       "--weight-encoding", e});
}

TEST(TgemmCli, BitExactWithGivenLayoutsAndWideWords) {
  for (const char* e : kTernaryEncodings) {
    const nlohmann::json j =
        run_tgemm("mini", {"--m", "16", "--n", "24", "--k", "43", "--weight-encoding", e, "--layout-w",
                           "((43:6), (4_PE, 6:1))", "--layout-c", "((2_L1B, 4_MAB, 2:6), (4_PE, 6:1))"});
    EXPECT_EQ(j["info"]["layout_w"], "((43:6), (4_PE, 6:1))") << e;
  }
  for (const char* e : kTernaryEncodings) {
    std::vector<std::string> args{
        "run", "tgemm",    "--machine",     testing::data_path("machines/mini-w4.yaml"),
        "--m", "7",        "--n",           "50",
        "--k", "129",      "--per-channel", "--weight-encoding",
        e,     "--verify", "--quiet"};
    auto r = run_treesim(args);
    EXPECT_EQ(r.exit_code, 0) << e << "\n" << r.err;
  }
}

std::uint64_t field(const nlohmann::json& j, const char* key) { return j.value(key, std::uint64_t{0}); }

// `--weight-encoding all` runs the four encodings; its report holds each run's report by encoding.
nlohmann::json compare_all(std::vector<std::string> extra) {
  static int n = 0;
  std::string report = testing::temp_path("tgemm-all-" + std::to_string(n++) + ".json");
  std::vector<std::string> args{"run",
                                "tgemm",
                                "--machine",
                                source_path("configs/mini.yaml"),
                                "--verify",
                                "--quiet",
                                "--report",
                                report,
                                "--weight-encoding",
                                "all"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_treesim(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return {};
  nlohmann::json j = nlohmann::json::parse(testing::read_text(report));
  EXPECT_EQ(j["compare"], "weight-encoding");
  for (const char* e : kTernaryEncodings) {
    EXPECT_EQ(j["runs"][e]["verify"]["ok"], true) << e;
    EXPECT_EQ(j["runs"][e]["info"]["weight_encoding"], e);
  }
  return j["runs"];
}

TEST(TgemmCli, DptMovesAFifthOfInt8sWeightBytesAndFourFifthsOfBcts) {
  for (const auto& shape : std::vector<std::vector<std::string>>{{"--m", "8", "--n", "64", "--k", "100"},
                                                                 {"--m", "64", "--n", "64", "--k", "2001"}}) {
    const nlohmann::json runs = compare_all(shape);
    std::map<std::string, std::uint64_t> bytes;
    for (const char* e : kTernaryEncodings) bytes[e] = field(runs[e], "w_dram_read_bytes");
    EXPECT_GT(bytes["dpt"], 0u);
    EXPECT_LE(static_cast<double>(bytes["dpt"]), 0.21 * static_cast<double>(bytes["int8"])) << shape[5];
    EXPECT_LE(static_cast<double>(bytes["dpt"]), 0.81 * static_cast<double>(bytes["bct"])) << shape[5];
    EXPECT_EQ(bytes["dpt"], bytes["base3"]);
    // The decoder works only for the packed encodings; base 3's is the slowest.
    auto decode = [&](const char* e) {
      return runs[e]["units"]["dpt_decoder"]["busy_cycles"].get<std::uint64_t>();
    };
    EXPECT_GT(decode("dpt"), 0u);
    EXPECT_EQ(decode("int8"), 0u);
    EXPECT_GT(decode("base3"), decode("dpt"));
  }
}

TEST(TgemmCli, CompareAllPrintsTheEncodingsSideBySide) {
  auto r = run_treesim({"run", "tgemm", "--machine", source_path("configs/mini.yaml"), "--m", "8", "--n",
                        "64", "--k", "100", "--weight-encoding", "all"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("tgemm on mini, --weight-encoding compared:"), std::string::npos) << r.out;
  for (const char* row : {"cycles", "bound", "DRAM read B", "PE down sent B", "dpt_decoder busy", "mac busy",
                          "w_dram_read_bytes"})
    EXPECT_NE(r.out.find("\n" + std::string(row) + " "), std::string::npos) << row << "\n" << r.out;
}

// tgemm takes qgemm's output-stage options (one GEMM option set): --act relu clamps C at its zero
// point and --rounding chooses the requant arithmetic, both verified against the host reference.
TEST(TgemmCli, ActAndRoundingShapeTheOutputAsInQgemm) {
  auto below_zero = [](const std::vector<std::string>& extra) {
    const std::string out = testing::temp_path("tgemm-act.npy");
    std::vector<std::string> args = {"--m", "16", "--n", "24", "--k", "100", "--out", out};
    args.insert(args.end(), extra.begin(), extra.end());
    run_tgemm("mini", args);
    const io::NpyArray c = io::read_npy(out);
    std::uint64_t n = 0;
    for (std::uint8_t b : c.bytes) n += static_cast<std::int8_t>(b) < 0;
    return n;
  };
  EXPECT_GT(below_zero({}), 0u);
  EXPECT_EQ(below_zero({"--act", "relu"}), 0u);
  EXPECT_EQ(below_zero({"--act", "relu", "--rounding", "float", "--per-channel"}), 0u);
}

TEST(TgemmCli, CompareAllRefusesOut) {
  const std::string out = testing::temp_path("never-all.npy");
  auto r = run_treesim({"run", "tgemm", "--machine", source_path("configs/mini.yaml"), "--m", "8", "--n", "8",
                        "--k", "8", "--weight-encoding", "all", "--out", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--weight-encoding all: --out would write one C of several; choose one"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::ifstream(out).good());
}

TEST(TgemmCli, AMemoryBoundShapeIsFasterWithDptThanWithInt8Weights) {
  for (const char* m : {"1", "8"}) {
    const std::vector<std::string> shape{"--m", m, "--n", "1024", "--k", "1000"};
    auto with = [&](const char* e) {
      std::vector<std::string> args = shape;
      args.insert(args.end(), {"--weight-encoding", e});
      return field(run_tgemm("mini", args), "cycles");
    };
    EXPECT_LT(with("dpt"), with("int8")) << "M = " << m;
  }
}

TEST(TgemmCli, TheTernaryMacFieldSetsTheMacRate) {
  std::string yaml = testing::read_text(source_path("configs/mini.yaml"));
  const std::string anchor = "  requant:";
  yaml.replace(yaml.find(anchor), 0, "  ternary_mac: { macs_per_cycle: 256, latency_cycles: 2 }\n");
  std::string fast = testing::write_temp_file("mini-ternary.yaml", yaml);
  const std::vector<std::string> args{"run", "tgemm", "--m", "64",      "--n",
                                      "64",  "--k",   "500", "--quiet", "--verify"};
  auto busy = [&](const std::string& machine) {
    std::string report = testing::temp_path("tm-" + std::to_string(machine.size()) + ".json");
    std::vector<std::string> a = args;
    a.insert(a.end(), {"--machine", machine, "--report", report});
    auto r = run_treesim(a);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(testing::read_text(report))["units"]["mac"]["busy_cycles"]
        .get<std::uint64_t>();
  };
  EXPECT_LT(busy(fast), busy(source_path("configs/mini.yaml")));
}

// W as files: an int8 .npy and the .dpt that `treesim dpt pack` writes of it give the same C, equal
// to a reference computed here from the files.
TEST(TgemmCli, FromFilesNpyAndDptGiveTheReferenceResult) {
  const std::uint64_t M = 5, N = 7, K = 23;
  std::vector<std::uint8_t> a(M * K);
  std::vector<std::int8_t> w(K * N);
  std::vector<std::int32_t> bias(N);
  for (std::uint64_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint8_t>((i * 53 + 7) % 256);
  for (std::uint64_t i = 0; i < w.size(); ++i) w[i] = static_cast<std::int8_t>((i * 7 + i / 3) % 3) - 1;
  for (std::uint64_t i = 0; i < N; ++i) bias[i] = static_cast<std::int32_t>(i * 100) - 300;
  const std::string a_path = testing::temp_path("ta.npy"), w_path = testing::temp_path("tw.npy");
  const std::string dpt_path = testing::temp_path("tw.dpt"), bias_path = testing::temp_path("tbias.npy");
  io::write_npy(a_path, io::make_npy({M, K}, a));
  io::write_npy(w_path, io::make_npy({K, N}, w));
  io::write_npy(bias_path, io::make_npy({N}, bias));
  ASSERT_EQ(run_treesim({"dpt", "pack", "--in", w_path, "--out", dpt_path}).exit_code, 0);
  // W's scale per output column, then one for the whole tensor: both folded into the multipliers.
  const std::vector<std::vector<float>> w_scales{{0.5f, 0.25f, 0.125f, 0.5f, 0.25f, 0.125f, 1.0f}, {0.125f}};
  for (const std::vector<float>& scales : w_scales) {
    std::string list;
    for (float s : scales) list += (list.empty() ? "" : ", ") + std::to_string(s);
    const std::string quant = testing::write_temp_file(
        "tq.yaml", "a_zero_point: 120\nout_zero_point: 3\nout_dtype: int8\na_scale: 0.02\nb_scale: [" + list +
                       "]\nout_scale: 0.5\n");
    numeric::QGemmParams p;
    p.M = M, p.N = N, p.K = K;
    p.a_dtype = core::DType::kUInt8, p.b_dtype = core::DType::kInt8;
    p.a_zero_point = 120, p.b_zero_point = 0;
    p.out.out_dtype = core::DType::kInt8;
    p.out.out_zero_point = 3;
    p.out.multipliers.clear();
    for (float s : scales)
      p.out.multipliers.push_back(numeric::quantize_multiplier(
          static_cast<double>(0.02f) * static_cast<double>(s) / static_cast<double>(0.5f)));
    std::vector<std::int32_t> ai(a.begin(), a.end()), wi(w.begin(), w.end());
    const std::vector<std::int32_t> expect = numeric::reference_qgemm(p, ai, wi, bias);
    for (const std::string& weights : {w_path, dpt_path})
      for (const char* e : kTernaryEncodings) {
        const std::string out = testing::temp_path("tc.npy");
        auto r = run_treesim({"run", "tgemm", "--machine", source_path("configs/mini.yaml"), "--a", a_path,
                              "--w", weights, "--bias", bias_path, "--quant", quant, "--weight-encoding", e,
                              "--out", out, "--verify", "--quiet"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        io::NpyArray c = io::read_npy(out);
        ASSERT_EQ(c.shape, (std::vector<std::uint64_t>{M, N}));
        for (std::uint64_t i = 0; i < M * N; ++i)
          ASSERT_EQ(int(static_cast<std::int8_t>(c.bytes[i])), expect[i])
              << weights << " " << e << " " << scales.size() << " scales, " << i;
      }
  }
}

struct Inputs {
  std::string a, quant;
};
Inputs small_inputs() {
  const std::string a = testing::temp_path("ea.npy");
  io::write_npy(a, io::make_npy<std::uint8_t>({2, 6}, std::vector<std::uint8_t>(12, 1)));
  return {a, testing::write_temp_file("eq.yaml", "multiplier: 1073741824\nshift: 0\n")};
}

TEST(TgemmCli, AWeightOutsideMinusOneToOneNamesItsIndex) {
  const Inputs in = small_inputs();
  std::vector<std::int8_t> w(6 * 4, 0);
  w[9] = 2;
  const std::string w_path = testing::temp_path("ebad.npy"), out = testing::temp_path("enever.npy");
  io::write_npy(w_path, io::make_npy({6, 4}, w));
  auto r = run_treesim({"run", "tgemm", "--machine", source_path("configs/mini.yaml"), "--a", in.a, "--w",
                        w_path, "--quant", in.quant, "--out", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("ebad.npy: element [2, 1] (index 9) is 2, expected -1, 0 or 1"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::ifstream(out).good());
}

TEST(TgemmCli, AnUnusedDptCodeNamesItsByteOffset) {
  const Inputs in = small_inputs();
  numeric::PackedTernary packed = numeric::pack_ternary(std::vector<std::int8_t>(6 * 4, 0), {6, 4}, 0);
  packed.bytes[5] = 0xCB;  // one of the 13 unused codes
  const std::string w_path = testing::temp_path("ebad.dpt"), out = testing::temp_path("enever2.npy");
  std::ofstream(w_path, std::ios::binary) << numeric::to_dpt_file_bytes(packed);
  auto r = run_treesim({"run", "tgemm", "--machine", source_path("configs/mini.yaml"), "--a", in.a, "--w",
                        w_path, "--quant", in.quant, "--out", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("offset 5"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("0xCB"), std::string::npos) << r.err;
  EXPECT_FALSE(std::ifstream(out).good());
}

TEST(TgemmCli, AWeightZeroPointIsRefused) {
  const Inputs in = small_inputs();
  const std::string w_path = testing::temp_path("ezp.npy");
  io::write_npy(w_path, io::make_npy({6, 4}, std::vector<std::int8_t>(24, 1)));
  const std::string quant =
      testing::write_temp_file("ezp.yaml", "b_zero_point: 3\nmultiplier: 1073741824\nshift: 0\n");
  auto r = run_treesim({"run", "tgemm", "--machine", source_path("configs/mini.yaml"), "--a", in.a, "--w",
                        w_path, "--quant", quant});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("field 'b_zero_point': ternary weights have zero point 0, got 3"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace treesim
