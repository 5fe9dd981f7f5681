// Bad ONNX input for bad_input_test.cpp: declared sizes past every cap, inputs that contradict the
// graph's declaration, backend-test folders with a file missing or of the wrong shape, and output
// paths that cannot be made (nothing is left behind, not even the --out folder).
#include "sim/io/npy.h"
#include "tests/test_support.h"
#include "tests/tools/bad_input_cases.h"
#include "tests/tools/onnx_bytes.h"

namespace treesim::testing {
namespace {

namespace ob = onnx_bytes;

const std::string kOnnxNodeTests = "/usr/share/libonnx-testdata/data/node/";

// A Relu over one uint8 input declared with `dims` (a negative size is dim_param "N").
std::string declared(const std::vector<std::int64_t>& dims) {
  return ob::model({ob::node("Relu", {"x"}, {"y"})}, {ob::value_info("x", ob::kUint8, dims)},
                   {ob::value_info("y", ob::kUint8, dims)});
}

std::string npy(core::DType dtype, const std::vector<std::uint64_t>& shape) {
  std::uint64_t n = core::dtype_bytes(dtype);
  for (std::uint64_t d : shape) n *= d;
  return io::to_npy_bytes(io::NpyArray{dtype, shape, std::vector<std::uint8_t>(n, 0)});
}

// The QDQ MLP of docs/onnx.md (input x float32[?,16]) with a valid input.
std::vector<std::pair<std::string, std::string>> qdq_mlp() {
  return {{"m.onnx", read_text(source_path("tests/data/onnx/qdq_mlp/model.onnx"))},
          {"x.npy", read_text(source_path("tests/data/onnx/qdq_mlp/x.npy"))}};
}

std::vector<std::string> run_mlp(std::vector<std::string> extra) {
  std::vector<std::string> a{"onnx", "run", "@D/m.onnx", "--machine", "@M", "--input", "x=@D/x.npy"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

// ONNX's own backend test of QLinearMatMul (8 inputs), its first set with `edits` applied (a file
// replaced by other bytes, or removed when the bytes are "<none>").
std::vector<std::pair<std::string, std::string>> backend_test(
    const std::vector<std::pair<std::string, std::string>>& edits) {
  const std::string dir = kOnnxNodeTests + "test_qlinearmatmul_2D/";
  std::vector<std::pair<std::string, std::string>> files{{"bt/model.onnx", read_text(dir + "model.onnx")}};
  for (int i = 0; i < 8; ++i) {
    const std::string name = "input_" + std::to_string(i) + ".pb";
    files.push_back({"bt/test_data_set_0/" + name, read_text(dir + "test_data_set_0/" + name)});
  }
  files.push_back({"bt/test_data_set_0/output_0.pb", read_text(dir + "test_data_set_0/output_0.pb")});
  for (const auto& [name, bytes] : edits)
    for (auto it = files.begin(); it != files.end(); ++it)
      if (it->first == "bt/test_data_set_0/" + name) {
        if (bytes == "<none>")
          files.erase(it);
        else
          it->second = bytes;
        break;
      }
  return files;
}

}  // namespace

std::vector<BadInput> onnx_cases() {
  const std::string qlm = kOnnxNodeTests + "test_qlinearmatmul_2D/test_data_set_0/";
  auto with = [](std::vector<std::pair<std::string, std::string>> files,
                 std::vector<std::pair<std::string, std::string>> more) {
    files.insert(files.end(), more.begin(), more.end());
    return files;
  };
  return {
      // A few bytes that declare gigabytes: refused by the reader, before anything is sized by them.
      {"OnnxInputDeclared2To30By4",
       {"onnx", "show", "@D/m.onnx", "--machine", "@M"},
       {{"m.onnx", declared({std::int64_t{1} << 30, 4})}},
       "@D/m.onnx: input 'x': declared uint8[1073741824,4] is more than 1073741824 bytes"},
      {"OnnxInputDeclared2To40By4",
       {"onnx", "show", "@D/m.onnx"},
       {{"m.onnx", declared({std::int64_t{1} << 40, 4})}},
       "input 'x': declared uint8[1099511627776,4]"},
      {"OnnxOutputDeclared2To62",
       {"onnx", "run", "@D/m.onnx", "--machine", "@M", "--input", "x=@D/x.npy"},
       {{"m.onnx", ob::model({ob::node("Relu", {"x"}, {"y"})}, {ob::value_info("x", ob::kUint8, {2})},
                             {ob::value_info("y", ob::kUint8, {std::int64_t{1} << 62})})},
        {"x.npy", npy(core::DType::kUInt8, {2})}},
       "output 'y': declared uint8[4611686018427387904] is more than"},
      {"OnnxShowBatchPastItsPlanningCap",
       {"onnx", "show", "@D/m.onnx", "--machine", "@M", "--batch", "1048576"},
       {{"m.onnx",
         ob::model({ob::node("Flatten", {"x"}, {"y"})}, {ob::value_info("x", ob::kUint8, {-1, 1, 32, 32})},
                   {ob::value_info("y", ob::kUint8, {-1, 1024})})}},
       "--batch: input 'x' uint8[?,1,32,32] at batch 1048576 makes the inputs 1073741824 bytes, more than "
       "268435456 (the most `onnx show` plans with"},
      {"OnnxShowEmptyMachine",
       {"onnx", "show", "@D/m.onnx", "--machine", ""},
       {{"m.onnx", declared({2, 4})}},
       "--machine: expected a machine file"},
      // Inputs that contradict the declaration: the file is named, with what was declared.
      {"OnnxRunInputOfAnotherShape", run_mlp({}),
       with({{"m.onnx", read_text(source_path("tests/data/onnx/qdq_mlp/model.onnx"))}},
            {{"x.npy", npy(core::DType::kFloat32, {3, 15})}}),
       "--input: @D/x.npy: expected float32[?,16] (as the graph declares it), got float32[3,15]"},
      {"OnnxRunInputOfAnotherType", run_mlp({}),
       with({{"m.onnx", read_text(source_path("tests/data/onnx/qdq_mlp/model.onnx"))}},
            {{"x.npy", npy(core::DType::kUInt8, {3, 16})}}),
       "--input: @D/x.npy: expected float32[?,16] (as the graph declares it), got uint8[3,16]"},
      {"OnnxRunInputTheGraphHasNot",
       {"onnx", "run", "@D/m.onnx", "--machine", "@M", "--input", "q=@D/x.npy"},
       qdq_mlp(),
       "--input: the graph has no input 'q' (its inputs: x)"},
      {"OnnxRunNamedDimensionsDisagree",
       {"onnx", "run", "@D/m.onnx", "--machine", "@M", "--input", "a=@D/a.npy", "--input", "b=@D/b.npy"},
       {{"m.onnx",
         ob::model({ob::node("Flatten", {"a"}, {"y"}), ob::node("Flatten", {"b"}, {"z"})},
                   {ob::value_info("a", ob::kUint8, {-1, 4}), ob::value_info("b", ob::kUint8, {-1, 4})},
                   {ob::value_info("y", ob::kUint8, {-1, 4}), ob::value_info("z", ob::kUint8, {-1, 4})})},
        {"a.npy", npy(core::DType::kUInt8, {2, 4})},
        {"b.npy", npy(core::DType::kUInt8, {3, 4})}},
       "dimension 0 ('N') is 3, but input 'a' gave 'N' the size 2"},
      // Output paths: checked before anything is made, and nothing made is left.
      {"OnnxOutThroughAFile", run_mlp({"--out", "@D/afile/out"}), with(qdq_mlp(), {{"afile", "x"}}),
       "--out: expected a folder, got '@D/afile/out' ('@D/afile' is a file)"},
      {"OnnxOutIsAFile", run_mlp({"--out", "@D/afile"}), with(qdq_mlp(), {{"afile", "x"}}),
       "--out: expected a folder, got '@D/afile' ('@D/afile' is a file)"},
      {"OnnxReportNoFolder", run_mlp({"--out", "@D/out/sub", "--report", "@D/nodir/r.json"}), qdq_mlp(),
       "--report: cannot write '@D/nodir/r.json': its folder does not exist"},
      {"OnnxReportReadOnly", run_mlp({"--out", "@D/out", "--report", "@D/ro/r.json"}),
       with(qdq_mlp(), {{"ro", "<dir-ro>"}}), "--report: cannot write '@D/ro/r.json'", true},
      // Backend-test folders: the missing file is named (not miscounted), and an input of another
      // shape is refused before the run.
      {"OnnxTestNoInput3",
       {"onnx", "test", "@D/bt", "--machine", "@M"},
       backend_test({{"input_3.pb", "<none>"}}),
       "@D/bt/test_data_set_0/input_3.pb: missing (the graph's input 3 of 8: b uint8[4,3])"},
      {"OnnxTestExtraInput",
       {"onnx", "test", "@D/bt", "--machine", "@M"},
       with(backend_test({}), {{"bt/test_data_set_0/input_8.pb", read_text(qlm + "input_0.pb")}}),
       "@D/bt/test_data_set_0/input_8.pb: the graph has 8 inputs (input_0.pb to input_7.pb)"},
      {"OnnxTestWrongShape",
       {"onnx", "test", "@D/bt", "--machine", "@M"},
       backend_test({{"input_0.pb", read_text(qlm + "input_3.pb")}}),
       "@D/bt/test_data_set_0/input_0.pb: expected uint8[2,4] (as the graph declares it), got uint8[4,3]"},
  };
}

}  // namespace treesim::testing
