// A quantized MLP as tools/mlp/train.py writes it: a folder with model.yaml and one .npy file per
// weight, weight scale and bias (docs/mlp.md). Each layer is a GEMM with int8 weights (qgemm) or
// ternary ones (tgemm), followed by its output stage; layer l's output is layer l+1's input.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/core/dtype.h"
#include "sim/numeric/requant.h"

namespace treesim::kernels::mlp {

struct MlpLayer {
  std::string name;
  bool ternary = false;              // weights −1/0/+1, run with tgemm
  std::uint64_t k = 0, n = 0;        // inputs, outputs
  std::vector<std::int8_t> weights;  // row-major K×N
  std::vector<float> weight_scale;   // N (per output channel)
  std::vector<std::int32_t> bias;    // N, in the accumulator's scale (input scale × weight scale)
  float out_scale = 1.0f;
  std::int32_t out_zero_point = 0;  // int8
  bool relu = false;
};

struct MlpModel {
  std::string name;
  double float_accuracy = 0;  // of the float model, as train.py measured it (0: not given)
  std::uint64_t features = 0;
  core::DType input_dtype = core::DType::kUInt8;
  float input_scale = 1.0f;
  std::int32_t input_zero_point = 0;
  std::vector<MlpLayer> layers;

  // The scale and zero point of layer l's input: the model's input, or layer l−1's output.
  float in_scale(std::size_t l) const { return l == 0 ? input_scale : layers[l - 1].out_scale; }
  std::int32_t in_zero_point(std::size_t l) const {
    return l == 0 ? input_zero_point : layers[l - 1].out_zero_point;
  }
  core::DType in_dtype(std::size_t l) const { return l == 0 ? input_dtype : core::DType::kInt8; }
};

// A model that cannot be used; what() is one line naming the file and field.
class MlpModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads DIR/model.yaml and the .npy files it names (relative to DIR). Checks that the layers chain
// (each layer's K is the previous N), the dtypes and shapes, ternary weights, scales > 0.
MlpModel load_mlp_model(const std::string& dir);

// Layer l's output stage: int8 output, multiplier[c] = QuantizeMultiplier(in_scale · weight_scale[c] /
// out_scale) (each an f32 widened to double, as TFLite's int8 path), ReLU as the clamp at the zero
// point, double rounding (the TFLite reference).
numeric::OutputStage output_stage(const MlpModel& model, std::size_t l);

}  // namespace treesim::kernels::mlp
