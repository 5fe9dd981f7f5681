// The hostile inputs of issue 11, each under a 1 GiB address-space cap and a 10 s timeout: every
// one must be refused at once (exit status 2, one line) instead of growing until bad_alloc, hanging
// or overflowing the stack. (Sanitizer builds run them without the cap; their shadow memory needs
// far more address space than 1 GiB.)
#include <sys/stat.h>

#include <algorithm>
#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sim/io/npy.h"
#include "sim/numeric/dpt_file.h"
#include "tests/test_support.h"
#include "tests/tools/bad_input_cases.h"
#include "tests/tools/onnx_bytes.h"

namespace treesim::testing {
namespace {

constexpr std::uint64_t kOneGiB = std::uint64_t{1} << 30;
constexpr int kTimeoutSeconds = 10;

void expect_refused(const std::vector<std::string>& args, const std::string& fragment) {
  const LimitedResult r = run_treesim_limited(args, kOneGiB, kTimeoutSeconds);
  EXPECT_FALSE(r.timed_out) << "still running after " << kTimeoutSeconds << " s";
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("treesim: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << "expected: " << fragment << "\n got: " << r.err;
  ::testing::Test::RecordProperty("seconds", fmt::format("{:.3f}", r.seconds));
  std::cout << fmt::format("refused in {:.3f} s: {}", r.seconds, r.err);
}

std::string machine_file(const std::string& name, const std::string& text) {
  return write_temp_file(name, text);
}

std::string deep_machine(std::size_t levels) {
  std::string text =
      "name: deep\nclock_ghz: 1\ndram: { bytes: 1GiB, bytes_per_cycle: 1, latency_cycles: 1 }\nlevels:\n"
      "  - &l { name: L, fanout: 1, memory_bytes: 1, down_bytes_per_cycle: 1, up_bytes_per_cycle: 1, "
      "latency_cycles: 0 }\n";
  for (std::size_t i = 1; i < levels; ++i) text += "  - *l\n";
  return text +
         "pe: { mac: { int8_macs_per_cycle: 1, latency_cycles: 1 }, dpt_decoder: { bytes_per_cycle: 1, "
         "latency_cycles: 1 }, requant: { values_per_cycle: 1, latency_cycles: 1 } }\n";
}

TEST(HostileInput, FanoutOf2To40) {
  const auto m = machine_file(
      "h-2to40.yaml", mini_with({{"{ name: L1B, fanout: 2,", "{ name: L1B, fanout: 1099511627776,"}}));
  expect_refused({"info", "--machine", m}, "levels[1].fanout");
  expect_refused({"exec", source_path("configs/mini.yaml"), "--machine", m}, "levels[1].fanout");
}

TEST(HostileInput, FanoutsMultiplyingTo2To64) {
  // No memory above the PEs, so the fan-outs themselves are what is refused.
  const auto m = machine_file("h-2to64.yaml", mini_with({{"memory_bytes: 4MiB", "memory_bytes: 0"},
                                                         {"memory_bytes: 1MiB", "memory_bytes: 0"},
                                                         {"fanout: 1,", "fanout: 65536,"},
                                                         {"fanout: 2,", "fanout: 65536,"},
                                                         {"MAB, fanout: 4,", "MAB, fanout: 65536,"},
                                                         {"PE,  fanout: 4,", "PE,  fanout: 65536,"}}));
  expect_refused({"info", "--machine", m}, "levels[1].fanout");
  expect_refused({"run", "qgemm", "--machine", m, "--m", "16", "--n", "16", "--k", "16"}, "levels[1].fanout");
}

TEST(HostileInput, MillionPesTimesLm) {
  const auto m = machine_file(
      "h-million.yaml",
      mini_with({{"fanout: 1,", "fanout: 62500,"},
                 {"PE,  fanout: 4, memory_bytes: 64KiB", "PE,  fanout: 2, memory_bytes: 1MiB"}}));
  expect_refused({"topology", "--dot", "--machine", m}, "memory_bytes");
}

TEST(HostileInput, LmOf16MillionTiB) {
  const auto m = machine_file("h-lm.yaml", mini_with({{"memory_bytes: 64KiB", "memory_bytes: 16777215TiB"}}));
  expect_refused({"place", "--machine", m, "--shape", "12,8", "--layout", "((4_PE, 3:8), (8:1))"},
                 "levels[3].memory_bytes");
}

TEST(HostileInput, HundredMegabyteMachineFile) {
  const std::string path = temp_path("h-100mb.yaml");
  {
    std::ofstream out(path, std::ios::binary);
    const std::string line = "# " + std::string(97, 'x') + "\n";
    for (int i = 0; i < 1000000; ++i) out << line;
  }
  expect_refused({"info", "--machine", path}, "the machine file is 100000000 bytes");
}

TEST(HostileInput, DevZeroAsEveryInputFile) {
  expect_refused({"info", "--machine", "/dev/zero"}, "/dev/zero:1:1: not a regular file");
  expect_refused({"exec", "/dev/zero", "--machine", source_path("configs/mini.yaml")},
                 "/dev/zero: not a regular file");
  const auto npy = write_temp_file("h-a.npy", "");
  expect_refused(
      {"quant", "gemm", "--a", npy, "--b", npy, "--quant", "/dev/zero", "--out", temp_path("h-c.npy")},
      "/dev/zero:1:1: not a regular file");
  expect_refused({"dpt", "unpack", "--in", "/dev/zero", "--out", temp_path("h-w.npy")},
                 "/dev/zero: not a regular file");
  expect_refused({"dpt", "pack", "--in", "/dev/zero", "--out", temp_path("h-w.dpt")},
                 "/dev/zero: not a regular file");
}

TEST(HostileInput, TensorLargerThanDram) {
  const auto p = write_temp_file("h-tensor.txt",
                                 "tensor A shape=1000000000000\n"
                                 "load tensor=A layout=\"((4_PE, 3:8), (8:1))\" lm=0\n");
  expect_refused({"exec", p, "--machine", source_path("configs/mini.yaml")}, "tensor 'A'");
}

TEST(HostileInput, TwentyThousandLevels) {
  const auto m = machine_file("h-deep.yaml", deep_machine(20000));
  expect_refused({"info", "--machine", m}, "at most 64 levels, got 20000");
  expect_refused({"topology", "--dot", "--machine", m}, "at most 64 levels, got 20000");
}

TEST(HostileInput, DeeplyNestedYaml) {
  const auto m = machine_file("h-nested.yaml", std::string(1000000, '['));
  expect_refused({"info", "--machine", m}, "h-nested.yaml:");
}

// Small files that declare sizes from 2^24 to 2^62 to every reader that sizes memory by a
// declaration (ONNX shapes, Matrix Market headers, .dpt shapes, .npy headers): each command ends
// within the 1 GiB cap and the timeout, refusing with one line or running, never with an internal
// error.
void expect_contained(const std::vector<std::string>& args) {
  const LimitedResult r = run_treesim_limited(args, kOneGiB, kTimeoutSeconds);
  EXPECT_FALSE(r.timed_out) << "still running after " << kTimeoutSeconds << " s";
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 2) << "exit " << r.exit_code << ": " << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(HostileInput, DeclaredSizesUpTo2To62StayWithinAGib) {
  namespace ob = onnx_bytes;
  const std::string mini = source_path("configs/mini.yaml");
  const std::string x = write_temp_file("h-x.npy", "");
  io::write_npy(x, io::make_npy<std::uint8_t>({2}, {0, 0}));
  for (int k : {24, 31, 40, 62}) {
    SCOPED_TRACE(k);
    const std::uint64_t n = std::uint64_t{1} << k;
    const std::string tag = std::to_string(k);
    // ONNX: a graph input and output of n elements.
    const auto onnx =
        write_temp_file("h-declared-" + tag + ".onnx",
                        ob::model({ob::node("Flatten", {"x"}, {"y"})},
                                  {ob::value_info("x", ob::kUint8, {static_cast<std::int64_t>(n)})},
                                  {ob::value_info("y", ob::kUint8, {1, static_cast<std::int64_t>(n)})}));
    expect_contained({"onnx", "show", onnx, "--machine", mini});
    expect_contained({"onnx", "run", onnx, "--machine", mini, "--input", "x=" + x});
    // Matrix Market: n × n with one entry.
    const auto mtx =
        write_temp_file("h-declared-" + tag + ".mtx",
                        fmt::format("%%MatrixMarket matrix coordinate real general\n{} {} 1\n1 1 1\n", n, n));
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"run", "spmm", "--matrix", mtx, "--n", "4", "--machine", mini},
          {"run", "spmv", "--matrix", mtx, "--machine", mini},
          {"tune", "spmv", "--matrix", mtx, "--machine", mini},
          {"sparse", "partition", mtx, "--pes", "4"},
          {"sparse", "show", mtx}})
      expect_contained(args);
    // .dpt: shape 0 × n (no payload at all).
    const auto dpt_file = write_temp_file("h-declared-" + tag + ".dpt",
                                          numeric::to_dpt_file_bytes(numeric::PackedTernary{{0, n}, 1, {}}));
    expect_contained({"dpt", "unpack", "--in", dpt_file, "--out", temp_path("h-declared.npy")});
    // .npy: an n × 4 int8 header with no data.
    const std::string dict =
        fmt::format("{{'descr': '|i1', 'fortran_order': False, 'shape': ({}, 4), }}\n", n);
    std::string npy("\x93NUMPY\x01\x00", 8);
    npy += static_cast<char>(dict.size());
    npy += '\0';
    const auto npy_file = write_temp_file("h-declared-" + tag + ".npy", npy + dict);
    const auto quant =
        write_temp_file("h-q.yaml", "a_zero_point: 0\nb_zero_point: 0\nmultiplier: 1073741824\nshift: 0\n");
    expect_contained({"run", "qgemm", "--machine", mini, "--a", npy_file, "--b", npy_file, "--quant", quant});
    expect_contained({"dpt", "pack", "--in", npy_file, "--out", temp_path("h-declared.dpt")});
  }
}

}  // namespace
}  // namespace treesim::testing
