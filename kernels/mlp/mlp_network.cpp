#include "kernels/mlp/mlp_network.h"

#include "kernels/chain/gemm_network.h"
#include "kernels/mlp/mlp_layer.h"
#include "kernels/tgemm/tgemm.h"

namespace treesim::kernels::mlp {

std::vector<QgemmProblem> network_problems(const MlpModel& model, std::uint64_t rows) {
  std::vector<QgemmProblem> out;
  for (std::size_t l = 0; l < model.layers.size(); ++l) {
    QgemmProblem p = layer_gemm_problem(model, l, rows);
    if (model.layers[l].ternary) set_weight_encoding(p, WeightEncoding::kDpt);
    out.push_back(std::move(p));
  }
  return out;
}

// A GemmNetwork of the model's layers: its reference is the host's quantized GEMM layer after layer,
// which is host_forward's.
std::unique_ptr<Problem> network_problem(const MlpModel& model, std::uint64_t rows,
                                         std::vector<std::uint8_t> input, bool via_dram) {
  std::vector<QgemmProblem> net = network_problems(model, rows);
  std::vector<GemmLayer> layers;
  for (std::size_t i = 0; i < net.size(); ++i) {
    const MlpLayer& layer = model.layers[i];
    layers.push_back({net[i], std::vector<std::uint8_t>(layer.weights.begin(), layer.weights.end()),
                      int32_bytes(layer.bias)});
  }
  Result<std::unique_ptr<Problem>> problem =
      gemm_network_problem(std::move(layers), std::move(input), via_dram);
  // The model was checked on load (its layers chain): a failure here is a bug.
  if (!problem) throw std::logic_error("mlp network: " + problem.errors().front().message());
  return std::move(problem.value());
}

}  // namespace treesim::kernels::mlp
