// `treesim onnx test`: ONNX's backend test folders (model.onnx with test_data_set_*/{input,output}_N.pb)
// run on the machine, every output compared with the expected one.
#pragma once

#include <string>

#include "kernels/graph/fuse.h"

namespace treesim::tools {

// The model with its Q/DQ patterns fused into quantized nodes (kernels/graph/fuse.h); CliError when the file
// cannot be read.
graph::Fusion read_model_or_throw(const std::string& path);

// Runs every test set of the folder and prints a line per output; 0 when all pass, else 1.
int run_onnx_backend_test(const std::string& dir, const std::string& machine_path, bool verify);

}  // namespace treesim::tools
