// `treesim onnx`: show lists where every node runs (and what cannot run); test runs a backend test
// folder; hostile files are one line and exit 2, within a memory cap and a timeout.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/io/npy.h"
#include "tests/test_support.h"
#include "tests/tools/onnx_bytes.h"

namespace treesim::testing {
namespace {

const std::string kNode = "/usr/share/libonnx-testdata/data/node/";

using onnx_bytes::field;
using onnx_bytes::varint;

// ModelProto.graph = 7, GraphProto.node = 1, NodeProto.op_type = 4.
std::string model_with_nodes(std::size_t count) {
  const std::string node = field(1, field(4, "Relu"));
  std::string graph;
  graph.reserve(node.size() * count);
  for (std::size_t i = 0; i < count; ++i) graph += node;
  return field(7, graph);
}

void expect_one_line(const CliResult& r, const std::string& fragment) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("treesim: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << "expected: " << fragment << "\n got: " << r.err;
}

TEST(OnnxCli, ShowListsANodeThatCannotRunWithWhyAndExitsZero) {
  const CliResult r = run_treesim({"onnx", "show", kNode + "test_averagepool_2d_default/model.onnx"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("AveragePool #0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unsupported"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 node cannot run"), std::string::npos) << r.out;
}

// The number before " cycles" at the end of the first line that contains `marker`.
std::uint64_t cycles_after(const std::string& text, const std::string& marker) {
  const std::size_t at = text.find(marker);
  if (at == std::string::npos) return 0;
  const std::size_t end = text.find(" cycles", at);
  const std::size_t start = text.rfind(' ', end - 1) + 1;
  return std::stoull(text.substr(start, end - start));
}

TEST(OnnxCli, ShowWithAMachinePlansEveryMachineNodeAndItsCyclesAreTheRunsOfThatBatch) {
  const std::string model = testing::data_path("onnx/fashion_cnn/model.onnx");
  const CliResult show = run_treesim(
      {"onnx", "show", model, "--machine", testing::source_path("configs/mini.yaml"), "--batch", "2"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  std::size_t plans = 0;
  for (std::size_t at = show.out.find("      plan: "); at != std::string::npos;
       at = show.out.find("      plan: ", at + 1))
    ++plans;
  EXPECT_EQ(plans, 3u) << show.out;  // two convolutions and the dense layer
  const std::string x = testing::temp_path("zeros-x.npy");
  io::NpyArray images;
  images.dtype = core::DType::kUInt8;
  images.shape = {2, 784};
  images.bytes.assign(2 * 784, 0);
  io::write_npy(x, images);
  const CliResult run = run_treesim(
      {"onnx", "run", model, "--machine", testing::source_path("configs/mini.yaml"), "--input", "x=" + x});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::uint64_t shown = cycles_after(show.out, "on mini (batch 2): ");
  EXPECT_GT(shown, 0u) << show.out;
  EXPECT_EQ(shown, cycles_after(run.out, "on the machine), ")) << run.out;
}

TEST(OnnxCli, ShowWithAMachineButANodeThatCannotRunSaysThereIsNoPlan) {
  const CliResult r = run_treesim({"onnx", "show", kNode + "test_averagepool_2d_default/model.onnx",
                                   "--machine", testing::source_path("configs/mini.yaml")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("1 node cannot run, so there is no plan"), std::string::npos) << r.out;
}

TEST(OnnxCli, TestPassesQLinearMatMulOnTheBoard) {
  const CliResult r = run_treesim({"onnx", "test", kNode + "test_qlinearmatmul_2D", "--machine",
                                   source_path("configs/mncore-board.yaml")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("output y: pass (6 uint8[2,3], exact;"), std::string::npos) << r.out;
}

TEST(OnnxCli, TestOfAFolderWithoutAModelIsOneLine) {
  const std::string dir = temp_path("empty_case");
  std::filesystem::create_directories(dir);
  expect_one_line(run_treesim({"onnx", "test", dir, "--machine", source_path("configs/mini.yaml")}),
                  "model.onnx: cannot open the ONNX model");
}

TEST(OnnxCli, TruncatedModelIsOneLine) {
  const std::string bytes = model_with_nodes(3);
  const std::string path = write_temp_file("truncated.onnx", bytes.substr(0, bytes.size() - 4));
  expect_one_line(run_treesim({"onnx", "show", path}), "not an ONNX model (the protobuf does not parse");
}

TEST(OnnxCli, AMillionNodeGraphIsRefusedWithinAGibAndTenSeconds) {
  const std::string path = write_temp_file("million.onnx", model_with_nodes(1000000));
  const LimitedResult r = run_treesim_limited({"onnx", "show", path}, std::uint64_t{1} << 30, 10);
  EXPECT_FALSE(r.timed_out);
  expect_one_line(r, "the graph has 1000000 nodes; treesim takes at most 100000");
}

TEST(OnnxCli, ANodeWithoutOutputsIsShownNotACrash) {
  // NodeProto.input = 1, op_type = 4; no output.
  const std::string node = field(1, "x") + field(4, "DequantizeLinear");
  const std::string path = write_temp_file("no_output.onnx", field(7, field(1, node)));
  const CliResult r = run_treesim({"onnx", "show", path});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("DequantizeLinear #0"), std::string::npos) << r.out;
}

TEST(OnnxCli, AnInitializerWhoseShapeOverflowsIsOneLine) {
  // GraphProto.initializer = 5; TensorProto.dims = 1 (varint), data_type = 2, name = 8.
  const std::string dims = std::string(1, '\x08') + varint(std::uint64_t{1} << 40);
  const std::string tensor = dims + dims + std::string(1, '\x10') + varint(3) + field(8, "w");
  const std::string path = write_temp_file("overflow.onnx", field(7, field(5, tensor)));
  expect_one_line(run_treesim({"onnx", "show", path}), "initializer 'w': shape's element count overflows");
}

TEST(OnnxCli, TraceJsonPutsEveryProgramOnOneTimeAxisAndLeavesNoPartsBehind) {
  // --via-dram: a program per node, so that there are several to put on one axis.
  const std::string dir = testing::temp_path("onnx-trace");
  std::filesystem::create_directories(dir);
  const std::string trace = dir + "/t.json", x = testing::temp_path("cnn-x.npy");
  io::NpyArray images;
  images.dtype = core::DType::kUInt8;
  images.shape = {2, 784};
  images.bytes.assign(2 * 784, 7);
  io::write_npy(x, images);
  const CliResult r = run_treesim({"onnx", "run", testing::data_path("onnx/fashion_cnn/model.onnx"),
                                   "--machine", testing::source_path("configs/mini.yaml"), "--input",
                                   "x=" + x, "--trace-json", trace, "--via-dram"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(testing::read_text(trace));
  std::vector<std::string> programs, processes;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X" && e["pid"] == (std::int64_t{1} << 40)) programs.push_back(e["name"]);
    if (e["ph"] == "M" && e["name"] == "process_name") processes.push_back(e["args"]["name"]);
  }
  EXPECT_EQ(programs, (std::vector<std::string>{"QConv 'l0'", "QConv 'l1'", "QGemm 'l2'"}));
  EXPECT_NE(std::find(processes.begin(), processes.end(), "QConv 'l1': board"), processes.end())
      << j.dump().substr(0, 400);
  std::size_t files = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir)) files += f.is_regular_file();
  EXPECT_EQ(files, 1u);
}

}  // namespace
}  // namespace treesim::testing

namespace treesim::testing {
namespace {

// The CNN's two convolutions and its dense layer in one program (the second convolution reading the
// first's NHWC output, the dense layer its flattened NHWC output with its weight rows reordered), and
// with --via-dram one program each through the host: the same logits, and every node equal to its
// host reference.
TEST(OnnxCli, TheCnnRunsAsOneProgramWithTheLogitsOfAProgramPerNodeAndItsFirstOutputInTheLms) {
  const std::string model = testing::data_path("onnx/fashion_cnn/model.onnx");
  const std::string x = testing::temp_path("one-program-x.npy");
  io::NpyArray images;
  images.dtype = core::DType::kUInt8;
  images.shape = {3, 784};
  for (std::size_t i = 0; i < 3 * 784; ++i) images.bytes.push_back(static_cast<std::uint8_t>((i * 37) % 251));
  io::write_npy(x, images);
  nlohmann::json reports[2];
  io::NpyArray logits[2];
  for (int via_dram = 0; via_dram < 2; ++via_dram) {
    const std::string dir = testing::temp_path(via_dram ? "cnn-per-node" : "cnn-one-program");
    std::vector<std::string> args{
        "onnx",     "run",        model,      "--machine", testing::source_path("configs/mini.yaml"),
        "--input",  "x=" + x,     "--verify", "--out",     dir,
        "--report", dir + ".json"};
    if (via_dram) args.push_back("--via-dram");
    const CliResult r = run_treesim(args);
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    reports[via_dram] = nlohmann::json::parse(testing::read_text(dir + ".json"));
    logits[via_dram] = io::read_npy(dir + "/logits.npy");
    for (const auto& n : reports[via_dram]["nodes"]) {
      if (n["runs_on"] == "machine") {
        EXPECT_TRUE(n["verify"]["ok"]) << n.dump();
      }
    }
  }
  EXPECT_EQ(reports[0]["programs"], 1);
  EXPECT_EQ(reports[1]["programs"], 3);
  EXPECT_EQ(logits[0].bytes, logits[1].bytes);
  for (const auto& n : reports[0]["nodes"]) {
    if (n["runs_on"] != "machine") continue;
    EXPECT_EQ(n["program"]["first"], "QConv 'l0'") << n.dump();
    EXPECT_EQ(n["program"]["nodes"], 3) << n.dump();
  }
  // The first convolution's output stays in the LMs, where the second reads its windows: neither
  // writes nor reads it in DRAM, and the program is faster for it.
  const auto node = [&](int r, const char* label) {
    for (const auto& n : reports[r]["nodes"])
      if (n["node"] == label) return n;
    return nlohmann::json{};
  };
  EXPECT_TRUE(node(0, "QConv 'l0'").value("output_in_lm", false));
  EXPECT_FALSE(node(1, "QConv 'l0'").value("output_in_lm", false));
  EXPECT_EQ(node(0, "QConv 'l0'")["dram_write_bytes"], 0);
  EXPECT_EQ(node(1, "QConv 'l0'")["dram_write_bytes"], 3 * 28 * 28 * 8);
  EXPECT_LT(node(0, "QConv 'l1'")["dram_read_bytes"].get<std::uint64_t>(),
            node(1, "QConv 'l1'")["dram_read_bytes"].get<std::uint64_t>());
  EXPECT_LT(reports[0]["cycles"].get<std::uint64_t>(), reports[1]["cycles"].get<std::uint64_t>());
}

}  // namespace
}  // namespace treesim::testing
