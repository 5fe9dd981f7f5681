// ONNX's backend test folders (model.onnx and test_data_set_*/{input,output}_N.pb), read apart from
// running them: the folder's files are loaded as bytes first, then parsed, so that the parsing is
// tested (and fuzzed) without a disk. Errors name the file and what it should have been.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kernels/graph/fuse.h"
#include "kernels/kernel.h"

namespace treesim::graph {

// A folder's files as bytes: model.onnx, and each test_data_set_* folder (in name order) with its
// .pb files by name.
struct BackendFolder {
  std::string dir;  // as given, for messages
  std::string model;
  std::vector<std::pair<std::string, std::map<std::string, std::string>>> sets;
};

// One set: the graph's inputs and expected outputs, in the graph's order.
struct BackendSet {
  std::string name;  // "test_data_set_0"
  std::vector<Tensor> inputs, outputs;
};

// Reads `dir`'s model.onnx and the .pb files of every test_data_set_* folder (each within the
// tensor cap). A folder without sets, or one that cannot be read, is an error.
kernels::Result<BackendFolder> load_backend_folder(const std::string& dir);
// The model, its Q/DQ patterns fused (as `onnx run` reads it).
kernels::Result<Fusion> backend_model(const BackendFolder& folder);
// Every set's tensors: input_N.pb for each of the graph's inputs (N from 0) and output_N.pb for
// each output. A missing file, one past the graph's count, or an input whose type or shape is not
// the graph's declaration is an error naming the file.
kernels::Result<std::vector<BackendSet>> backend_sets(const BackendFolder& folder, const Model& model);

}  // namespace treesim::graph
