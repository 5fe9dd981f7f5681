// `treesim run spmv|spmm`: bit-exact against the host reference (a plain loop over A's triples) for
// every encoding and partition on random matrices and the real ones of tests/data/sparse, on mini
// and on the board; partitions that differ in balance differ in cycles and in the report's sparse
// section; bad options give one line and exit 2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstring>
#include <fstream>

#include "sim/io/npy.h"
#include "tests/test_support.h"
#include "tests/tools/verified_run.h"

namespace treesim {
namespace {

using testing::mini_with_lm;
using testing::run_treesim;
using testing::run_verified;
using testing::source_path;

const char* const kEncodings[] = {"csr", "csc", "coo", "dcsr", "dcsc", "bsr2x2", "ell8", "2:4"};
const char* const kPartitions[] = {"rows", "nnz", "2d"};

std::string data(const std::string& name) { return source_path("tests/data/sparse/" + name); }

class SpmvEncoding : public ::testing::TestWithParam<const char*> {};

TEST_P(SpmvEncoding, RandomMatricesAreBitExactUnderEveryPartitionOnMini) {
  for (const char* partition : kPartitions)
    for (const char* seed : {"1", "2"})
      run_verified("spmv", "mini",
                   {"--rows", "45", "--cols", "38", "--nnz-per-row", "5", "--encoding", GetParam(),
                    "--partition", partition, "--seed", seed});
}

TEST_P(SpmvEncoding, SpmmIsBitExactUnderEveryPartitionOnMini) {
  for (const char* partition : kPartitions)
    run_verified("spmm", "mini",
                 {"--rows", "33", "--cols", "41", "--nnz-per-row", "3", "--n", "5", "--encoding", GetParam(),
                  "--partition", partition});
}

INSTANTIATE_TEST_SUITE_P(Encodings, SpmvEncoding, ::testing::ValuesIn(kEncodings), [](const auto& info) {
  std::string s = info.param;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
});

TEST(Spmv, RealMatricesAreBitExactInEveryEncodingThatHoldsThemOnMini) {
  // ELL with as many slots as the longest row; none of them is 2:4 as stored (pruned to it below).
  const std::vector<std::pair<std::string, std::string>> files = {
      {"jgl009.mtx", "ell9"},  {"pores_1.mtx", "ell9"}, {"lund_a.mtx", "ell21"},
      {"utm300.rua", "ell40"}, {"g20.rua", "ell5"},     {"test.mgraph", "ell5"}};
  for (const auto& [file, ell] : files)
    for (const char* encoding : {"csr", "csc", "coo", "dcsr", "bsr2x2", ell.c_str()})
      run_verified("spmv", "mini", {"--matrix", data(file), "--encoding", encoding, "--partition", "nnz"});
}

TEST(Spmv, RealMatricesPrunedToTwoOfFourAreBitExactOnMini) {
  // None of them is 2:4 as stored; --prune keeps the two largest of every four columns.
  for (const char* file :
       {"jgl009.mtx", "pores_1.mtx", "lund_a.mtx", "utm300.rua", "g20.rua", "test.mgraph"}) {
    nlohmann::json j = run_verified("spmv", "mini", {"--matrix", data(file), "--encoding", "2:4", "--prune"});
    EXPECT_NE(j.dump().find("pruned to 2:4"), std::string::npos) << file;
    run_verified("spmm", "mini", {"--matrix", data(file), "--encoding", "2:4", "--prune", "--n", "2"});
  }
}

TEST(Spmv, PruneWithoutAnNOfMEncodingIsAOneLineError) {
  auto r = run_treesim({"run", "spmv", "--machine", source_path("configs/mini.yaml"), "--matrix",
                        data("g20.rua"), "--encoding", "csr", "--prune"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--prune"), std::string::npos) << r.err;
}

TEST(Spmm, RealMatricesAreBitExactOnMini) {
  for (const char* file : {"jgl009.mtx", "pores_1.mtx", "lund_a.mtx", "utm300.rua", "g20.rua", "test.mgraph"})
    for (const char* encoding : {"csr", "dcsc", "bsr2x2"})
      run_verified("spmm", "mini",
                   {"--matrix", data(file), "--encoding", encoding, "--n", "3", "--partition", "2d"});
}

TEST(Spmv, RealAndRandomMatricesAreBitExactOnTheBoard) {
  run_verified("spmv", "mncore-board", {"--matrix", data("utm300.rua"), "--encoding", "csr"});
  run_verified("spmv", "mncore-board",
               {"--matrix", data("g20.rua"), "--encoding", "bsr2x2", "--partition", "2d"});
  run_verified(
      "spmv", "mncore-board",
      {"--rows", "3000", "--cols", "2000", "--nnz-per-row", "6", "--encoding", "2:4", "--partition", "nnz"});
  run_verified("spmm", "mncore-board",
               {"--matrix", data("lund_a.mtx"), "--encoding", "ell21", "--n", "3", "--partition", "2d"});
}

TEST(Spmv, FilesForXBiasAndQuantAreUsedAndVerify) {
  // 3×3 A = [[1 0 2] [0 0 0] [0 −3 0]] as reals; quantized: max 3 → scale 3/127.
  const std::string a = testing::temp_path("a.mtx");
  std::ofstream(a) << "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n1 3 2\n3 2 -3\n";
  const std::string x = testing::temp_path("x.npy"), bias = testing::temp_path("bias.npy");
  io::write_npy(x, io::NpyArray{core::DType::kInt8, {3}, {5, 0xfe, 7}});
  io::write_npy(bias,
                io::NpyArray{core::DType::kInt32, {3}, {1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}});
  const std::string q = testing::temp_path("q.yaml");
  std::ofstream(q) << "b_zero_point: 1\nmultiplier: 1073741824\nshift: -6\n";
  const std::string out = testing::temp_path("y.npy");
  auto r = run_treesim({"run", "spmv", "--machine", source_path("configs/mini.yaml"), "--matrix", a, "--x", x,
                        "--bias", bias, "--quant", q, "--out", out, "--verify", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const io::NpyArray y = io::read_npy(out);
  ASSERT_EQ(y.shape, std::vector<std::uint64_t>{3});
  // A's codes: 42, 85 (row 0), −127 (row 2). Row 0: 42·(5−1) + 85·(7−1) + 1 = 679; row 1: 0;
  // row 2: −127·(−2−1) − 1 = 380; × 1/128 (multiplier 2^30 / 2^31, shift −6), rounded: 5, 0, 3.
  EXPECT_EQ(static_cast<std::int8_t>(y.bytes[0]), 5);
  EXPECT_EQ(static_cast<std::int8_t>(y.bytes[1]), 0);
  EXPECT_EQ(static_cast<std::int8_t>(y.bytes[2]), 3);
}

TEST(Spmv, NnzPartitionBalancesASkewedMatrixAndTheReportSaysSo) {
  // Rows 0-7 hold 30 entries each, the other 120 rows 1: split by rows, the first PEs hold the
  // heavy rows; by nonzeros the PEs are near even, and the walk (and the run) is shorter.
  const std::string a = testing::temp_path("skewed.mtx");
  {
    std::ofstream f(a);
    f << "%%MatrixMarket matrix coordinate integer general\n128 128 " << 8 * 30 + 120 << "\n";
    for (int r = 0; r < 8; ++r)
      for (int c = 0; c < 30; ++c) f << r + 1 << " " << c * 4 + 1 << " " << (c % 5) + 1 << "\n";
    for (int r = 8; r < 128; ++r) f << r + 1 << " " << r + 1 << " 3\n";
  }
  auto rows = run_verified("spmv", "mini", {"--matrix", a, "--partition", "rows"});
  auto nnz = run_verified("spmv", "mini", {"--matrix", a, "--partition", "nnz"});
  ASSERT_FALSE(rows.is_null());
  ASSERT_FALSE(nnz.is_null());
  EXPECT_EQ(rows["sparse"]["nnz"], 360);
  EXPECT_EQ(rows["sparse"]["pe_nnz"]["max"], 120);  // 4 rows of 30 on PE 0 and PE 1
  EXPECT_GT(rows["sparse"]["imbalance"].get<double>(), 10.0);
  EXPECT_LT(nnz["sparse"]["imbalance"].get<double>(), rows["sparse"]["imbalance"].get<double>());
  EXPECT_LT(nnz["sparse"]["wasted_mac_slots"].get<std::uint64_t>(),
            rows["sparse"]["wasted_mac_slots"].get<std::uint64_t>());
  EXPECT_LT(nnz["instructions"]["sparse_mac"]["busy_cycles"].get<std::uint64_t>(),
            rows["instructions"]["sparse_mac"]["busy_cycles"].get<std::uint64_t>());
}

// A 64×64 matrix of 2×2 blocks on the diagonal: split by rows over mini's 32 PEs, each PE's columns
// are its own rows', and `extra` adds entries in column 0 to every row.
std::string block_diagonal(bool extra) {
  const std::string path = testing::temp_path(extra ? "diag_col0.mtx" : "diag.mtx");
  std::ofstream f(path);
  f << "%%MatrixMarket matrix coordinate integer general\n64 64 " << (extra ? 128 + 62 : 128) << "\n";
  for (int b = 0; b < 32; ++b)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j) f << 2 * b + i + 1 << " " << 2 * b + j + 1 << " " << 1 + i + j << "\n";
  if (extra)
    for (int r = 2; r < 64; ++r) f << r + 1 << " 1 -1\n";
  return path;
}

// x moves by the tree: a PE whose columns are its own rows receives its own x rows and nothing else,
// on every level; a column that every PE needs is read once and multicast.
TEST(Spmv, XMovesOnlyToThePesThatNeedIt) {
  const nlohmann::json local =
      run_verified("spmv", "mini", {"--matrix", block_diagonal(false), "--partition", "rows"});
  const nlohmann::json& x = local["phases"]["x"];
  EXPECT_EQ(x["dram"]["read_bytes"], 64);
  for (const char* level : {"L2B", "L1B", "MAB", "PE"})
    EXPECT_EQ(x["levels"][level]["down_delivered_bytes"], 64) << level;
  const nlohmann::json shared =
      run_verified("spmv", "mini", {"--matrix", block_diagonal(true), "--partition", "rows"});
  const nlohmann::json& xs = shared["phases"]["x"];
  EXPECT_EQ(xs["dram"]["read_bytes"], 64);  // column 0 too, once
  // Below the L2B every unit also receives x[0]: 2 L1Bs, 8 MABs and 31 PEs more (PE 0 holds it).
  EXPECT_EQ(xs["levels"]["L1B"]["down_delivered_bytes"], 64 + 1);
  EXPECT_EQ(xs["levels"]["MAB"]["down_delivered_bytes"], 64 + 7);
  EXPECT_EQ(xs["levels"]["PE"]["down_delivered_bytes"], 64 + 31);
}

// mini with a singleton coordinate costing one more walk item (pe.sparse_mac.level_items).
std::string mini_with_singleton_cost() {
  std::string text = testing::read_text(source_path("configs/mini.yaml"));
  const std::string pe = "\npe:\n";
  text.insert(text.find(pe) + pe.size(),
              "  sparse_mac: { items_per_cycle: 1, latency_cycles: 4, level_items: { singleton: 1 } }\n");
  const std::string path = testing::temp_path("mini-singleton.yaml");
  std::ofstream(path) << text;
  return path;
}

// The machine file's per-level costs reach the walk: COO's row coordinates (a singleton level) cost
// one item each, CSR has no singleton level and does not change.
TEST(Spmv, LevelCostsFromTheMachineFileChangeTheWalk) {
  const std::string costed = mini_with_singleton_cost();
  for (const char* encoding : {"csr", "coo"}) {
    const std::vector<std::string> args{"--matrix", data("g20.rua"), "--encoding", encoding};
    const nlohmann::json plain = run_verified("spmv", "mini", args);
    std::vector<std::string> with = {
        "run",      "spmv", "--machine", costed,
        "--verify", "-q",   "--report",  testing::temp_path(std::string("costed-") + encoding + ".json")};
    with.insert(with.end(), args.begin(), args.end());
    ASSERT_EQ(run_treesim(with).exit_code, 0) << encoding;
    const nlohmann::json more = nlohmann::json::parse(testing::read_text(with[7]));
    const double entries_per_pe = plain["sparse"]["stored_entries"].get<double>() / 32;
    const double extra = std::string(encoding) == "coo" ? entries_per_pe : 0;
    EXPECT_DOUBLE_EQ(more["sparse"]["pe_walk_items"]["mean"].get<double>(),
                     plain["sparse"]["pe_walk_items"]["mean"].get<double>() + extra)
        << encoding;
    if (extra > 0)
      EXPECT_GT(more["instructions"]["sparse_mac"]["busy_cycles"],
                plain["instructions"]["sparse_mac"]["busy_cycles"]);
    else
      EXPECT_EQ(more["cycles"], plain["cycles"]);
  }
}

nlohmann::json run_on(const std::string& machine, const std::string& kernel, std::vector<std::string> extra,
                      bool timing_only) {
  static int n = 0;
  const std::string report = testing::temp_path("passes-" + std::to_string(n++) + ".json");
  std::vector<std::string> args{"run", kernel,     "--machine", machine,
                                "-q",  "--report", report,      timing_only ? "--timing-only" : "--verify"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_treesim(args);
  EXPECT_EQ(r.exit_code, 0) << testing::joined(extra) << r.err;
  if (r.exit_code != 0) return {};
  nlohmann::json j = nlohmann::json::parse(testing::read_text(report));
  if (!timing_only) {
    EXPECT_EQ(j["verify"]["ok"], true) << testing::joined(extra);
  }
  return j;
}

// A matrix whose shares do not fit the LMs at once runs in passes of row blocks, bit-exact in every
// encoding and partition, with the timing-only run's cycles.
TEST(SpmvPasses, SharesLargerThanTheLmRunInPassesBitExact) {
  const std::string small = mini_with_lm("768");
  // A bias per row, moved in every pass with its rows.
  const std::string bias = testing::temp_path("bias400.npy");
  io::NpyArray b{core::DType::kInt32, {400}, std::vector<std::uint8_t>(1600)};
  for (std::size_t i = 0; i < 400; ++i) {
    const std::int32_t v = static_cast<std::int32_t>(i * 37 % 501) - 250;
    std::memcpy(b.bytes.data() + 4 * i, &v, 4);
  }
  io::write_npy(bias, b);
  for (const char* encoding : {"csr", "coo", "dcsc", "bsr2x2", "ell5", "2:4"})
    for (const char* partition : kPartitions) {
      std::vector<std::string> args{"--matrix",    data("g20.rua"), "--encoding", encoding,
                                    "--partition", partition,       "--bias",     bias};
      if (std::string(encoding) == "2:4") args.push_back("--prune");
      const nlohmann::json full = run_on(small, "spmv", args, false);
      EXPECT_GT(full["passes"].get<int>(), 1) << encoding << " " << partition;
      EXPECT_EQ(run_on(small, "spmv", args, true)["cycles"], full["cycles"]) << encoding << " " << partition;
    }
  const nlohmann::json spmm =
      run_on(small, "spmm", {"--matrix", data("g20.rua"), "--n", "3", "--partition", "nnz"}, false);
  EXPECT_GT(spmm["passes"].get<int>(), 1);
}

TEST(SpmvPasses, OnePassWhenTheSharesFit) {
  EXPECT_EQ(run_verified("spmv", "mini", {"--matrix", data("g20.rua")})["passes"], 1);
}

// `treesim sparse partition` prints what the kernel places: for every encoding and partition, its
// stored entries and walk items are the run's (a matrix with fewer rows than mini's 32 PEs too).
TEST(SparsePartition, PrintsWhatTheKernelPlacesForEveryEncoding) {
  const std::vector<std::pair<std::string, std::string>> files = {
      {"g20.rua", "ell5"}, {"jgl009.mtx", "ell9"}, {"pores_1.mtx", "ell9"}};
  for (const auto& [file, ell] : files)
    for (const char* encoding : {"csr", "csc", "coo", "dcsr", "dcsc", "bsr2x2", ell.c_str()})
      for (const char* partition : kPartitions) {
        const std::string what = file + " " + encoding + " " + partition;
        const nlohmann::json run = run_verified(
            "spmv", "mini", {"--matrix", data(file), "--encoding", encoding, "--partition", partition});
        const auto r =
            run_treesim({"sparse", "partition", data(file), "--machine", source_path("configs/mini.yaml"),
                         "--encoding", encoding, "--partition", partition, "--json"});
        ASSERT_EQ(r.exit_code, 0) << what << r.err;
        const nlohmann::json j = nlohmann::json::parse(r.out);
        EXPECT_EQ(j["stored_entries"], run["sparse"]["stored_entries"]) << what;
        EXPECT_EQ(j["grid"], run["sparse"]["grid"]) << what;
        std::uint64_t items_max = 0, items_total = 0;
        for (const auto& n : j["per_pe_items"]) {
          items_max = std::max<std::uint64_t>(items_max, n.get<std::uint64_t>());
          items_total += n.get<std::uint64_t>();
        }
        EXPECT_EQ(items_max, run["sparse"]["pe_walk_items"]["max"].get<std::uint64_t>()) << what;
        EXPECT_DOUBLE_EQ(static_cast<double>(items_total) / 32,
                         run["sparse"]["pe_walk_items"]["mean"].get<double>())
            << what;
      }
}

// While the matrix has at least as many rows as the machine has PEs, no partition leaves a PE
// without rows (lund_a's 147 rows leave none of mini's 32 PEs empty; jgl009's 9 rows leave 23 empty).
TEST(SparsePartition, NoPeIsLeftWithoutRowsWhileRowsLast) {
  for (const char* partition : {"rows", "nnz"}) {
    const auto r = run_treesim({"sparse", "partition", data("lund_a.mtx"), "--machine",
                                source_path("configs/mini.yaml"), "--partition", partition, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);  // named: a temporary dies before the loop
    for (const auto& n : j["per_pe_rows"]) EXPECT_GE(n.get<std::uint64_t>(), 1u) << partition;
  }
  const auto r = run_treesim({"sparse", "partition", data("jgl009.mtx"), "--pes", "32", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = nlohmann::json::parse(r.out)["per_pe_rows"];
  for (std::size_t pe = 0; pe < 32; ++pe) EXPECT_EQ(rows[pe].get<std::uint64_t>(), pe < 9 ? 1u : 0u) << pe;
}

TEST(Spmv, EncodingsDifferInStorageAndWalk) {
  auto csr = run_verified("spmv", "mini", {"--matrix", data("g20.rua"), "--encoding", "csr"});
  auto bsr = run_verified("spmv", "mini", {"--matrix", data("g20.rua"), "--encoding", "bsr2x2"});
  ASSERT_FALSE(csr.is_null());
  ASSERT_FALSE(bsr.is_null());
  EXPECT_EQ(csr["sparse"]["nnz"], bsr["sparse"]["nnz"]);
  // BSR walks in-block zeros: more entries than nonzeros; CSR walks exactly the nonzeros.
  EXPECT_EQ(csr["sparse"]["stored_entries"], csr["sparse"]["nnz"]);
  EXPECT_GT(bsr["sparse"]["stored_entries"].get<std::uint64_t>(), bsr["sparse"]["nnz"].get<std::uint64_t>());
  EXPECT_TRUE(csr["sparse"]["storage_bytes"].contains("crd[1]"));
  EXPECT_TRUE(bsr["sparse"]["storage_bytes"].contains("crd[1]"));
  EXPECT_NE(csr["cycles"], bsr["cycles"]);
}

struct Bad {
  std::vector<std::string> args;
  std::string message;
};

// C's int32 rows of 70000 columns do not fit mini's 64 KiB however the matrix is split.
TEST(Spmm, OperandsThatFitNoPassAreAOneLineError) {
  auto r = run_treesim({"run", "spmm", "--machine", source_path("configs/mini.yaml"), "--rows", "4", "--cols",
                        "4", "--nnz-per-row", "2", "--n", "70000"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("the LM holds 65536"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

// A row longer than the LM runs in column tiles, accumulated into the same int32 rows.
TEST(SpmvPasses, ARowLongerThanTheLmRunsInColumnTiles) {
  const nlohmann::json j =
      run_verified("spmv", "mini", {"--rows", "2", "--cols", "20000", "--nnz-per-row", "10000"});
  EXPECT_GT(j["passes"].get<int>(), 1);
  EXPECT_NE(j["info"]["plan"].get<std::string>().find("column tiles"), std::string::npos);
  const nlohmann::json spmm = run_verified(
      "spmm", "mini",
      {"--rows", "3", "--cols", "12000", "--nnz-per-row", "6000", "--n", "2", "--encoding", "dcsr"});
  EXPECT_GT(spmm["passes"].get<int>(), 1);
}

TEST(Spmv, BadOptionsGiveOneLineAndExit2) {
  const std::string mini = source_path("configs/mini.yaml");
  const std::string x_wrong = testing::temp_path("x-wrong.npy");
  io::write_npy(x_wrong, io::NpyArray{core::DType::kInt8, {4}, {1, 2, 3, 4}});
  const std::string q_zero = testing::temp_path("q-zero.yaml");
  std::ofstream(q_zero) << "a_zero_point: 3\nmultiplier: 1073741824\nshift: -6\n";
  const std::vector<Bad> cases = {
      {{"--rows", "10", "--encoding", "(i, j) -> (i : sparse)"}, "--encoding"},
      {{"--rows", "10", "--partition", "diagonal"}, "--partition"},
      {{}, "--matrix"},
      {{"--matrix", data("wrong.mtx")}, "wrong.mtx"},
      {{"--matrix", data("pores_1.mtx"), "--encoding", "2:4"}, "--encoding"},
      {{"--matrix", data("pores_1.mtx"), "--encoding", "ell2"}, "--encoding"},
      {{"--matrix", data("pores_1.mtx"), "--x", x_wrong}, "--x"},
      {{"--matrix", data("pores_1.mtx"), "--quant", q_zero}, "a_zero_point"},
  };
  for (const Bad& c : cases) {
    std::vector<std::string> args{"run", "spmv", "--machine", mini};
    args.insert(args.end(), c.args.begin(), c.args.end());
    auto r = run_treesim(args);
    EXPECT_EQ(r.exit_code, 2) << c.message << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace treesim
