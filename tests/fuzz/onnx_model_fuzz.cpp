// ONNX bytes (a model or a tensor, from libonnx-testdata seeds): every input either becomes a graph
// or a tensor, or is refused as an error value; a crash, a hang or unbounded memory is a bug. The
// seeds in corpus/onnx_model/ are copied unchanged from Debian bookworm's libonnx-testdata 1.12.0
// (data/node/): test_qlinearmatmul_2D/model.onnx, test_transpose_default/model.onnx, and the
// test_data_set_0 tensors input_0.pb of test_quantizelinear_axis and input_1.pb of
// test_reshape_reduced_dims.
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/graph/onnx_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace graph = treesim::graph;
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  auto model = graph::parse_onnx_model(bytes, "fuzz.onnx");
  if (model) {
    for (const auto& [name, t] : model->initializers)
      if (t.bytes.size() != t.count() * graph::elem_bytes(t.type)) __builtin_trap();
    // A declared input or output is within the tensor cap (what onnx show sizes its inputs by).
    for (const auto* values : {&model->inputs, &model->outputs})
      for (const graph::ValueInfo& v : *values) {
        unsigned __int128 bytes = v.type ? graph::elem_bytes(*v.type) : 1;
        for (std::int64_t d : v.shape) bytes *= d > 0 ? static_cast<unsigned __int128>(d) : 1;
        if (bytes > graph::kMaxTensorBytes) __builtin_trap();
      }
  } else if (model.errors().empty()) {
    __builtin_trap();
  }
  auto tensor = graph::parse_onnx_tensor(bytes, "fuzz.pb");
  if (tensor && tensor->bytes.size() != tensor->count() * graph::elem_bytes(tensor->type)) __builtin_trap();
  return 0;
}
