// Reading ONNX files with Debian's libonnx (the real protobuf schema): a model (ModelProto) and a
// tensor (TensorProto, as the backend tests' input_N.pb / output_N.pb hold them). The only files
// in treesim that know protobuf. Hostile files (truncated, wrong types, huge graphs, shapes whose
// product overflows) are errors naming the file and what is wrong, never a crash.
#pragma once

#include <string>

#include "kernels/graph/model.h"
#include "kernels/kernel.h"

namespace treesim::graph {

// Caps (docs/onnx.md, "Limits").
inline constexpr std::uint64_t kMaxModelBytes = std::uint64_t{1} << 30;  // 1 GiB
inline constexpr std::uint64_t kMaxNodes = 100000;
inline constexpr std::uint64_t kMaxTensorBytes = std::uint64_t{1} << 30;  // per tensor

kernels::Result<Model> read_onnx_model(const std::string& path);
kernels::Result<Model> parse_onnx_model(const std::string& bytes, const std::string& path);
kernels::Result<Tensor> read_onnx_tensor(const std::string& path);
kernels::Result<Tensor> parse_onnx_tensor(const std::string& bytes, const std::string& path);

}  // namespace treesim::graph
