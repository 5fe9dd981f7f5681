// One MLP layer as a kernel problem (qgemm for int8 weights, tgemm with DPT-packed weights for
// ternary ones) on a batch of inputs, and the whole network on the host (the reference).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "kernels/gemm/gemm.h"
#include "kernels/kernel.h"
#include "kernels/mlp/mlp_model.h"
#include "kernels/operand_bytes.h"

namespace treesim::kernels::mlp {

// The layouts of a layer's whole operands (A: input rows × K, B: the weights K × N, C: rows × N),
// as --layout-a/-b/-c take them. Empty: the kernel's own planner chooses.
struct LayerLayouts {
  std::string a, b, c;
};

// The layouts come from a plan file (load_plan_file), the chain planner (mlp_chain.h: a chain
// plan file of `treesim tune chain`, or the plan computed in the run), or none: the kernels' own
// planners.
using NetworkPlan = std::map<std::string, LayerLayouts>;  // by layer name

// Reads a plan file (YAML): `layers: { fc1: { a: LAYOUT, b: LAYOUT, c: LAYOUT }, ... }`, any of a, b
// and c optional. Throws MlpModelError (one line, naming the file and field) for a file that
// cannot be read, a layer the model does not have, or a field that is not a layout string.
NetworkPlan load_plan_file(const std::string& path, const MlpModel& model);

// Layer l's GEMM on `rows` inputs: its input's dtype and zero point, int8 weights, bias, the output
// stage (output_stage). Not yet marked ternary.
QgemmProblem layer_gemm_problem(const MlpModel& model, std::size_t l, std::uint64_t rows);

// Layer l on `rows` inputs (row-major rows × K codes of the layer's input dtype).
std::unique_ptr<Problem> layer_problem(const MlpModel& model, std::size_t l, std::uint64_t rows,
                                       std::vector<std::uint8_t> input, const LayerLayouts& layouts);

// The network on the host, with the reference quantized GEMM (sim/numeric/qgemm_reference.h):
// every layer's output codes for `rows` inputs (outputs[l] is layer l's, row-major rows × N).
std::vector<std::vector<std::int32_t>> host_forward(const MlpModel& model, const std::uint8_t* input,
                                                    std::uint64_t rows);

// The predicted class of each row of rows × classes logits codes: the first largest.
std::vector<std::uint32_t> predictions(const std::vector<std::int32_t>& logits, std::uint64_t classes);

}  // namespace treesim::kernels::mlp
