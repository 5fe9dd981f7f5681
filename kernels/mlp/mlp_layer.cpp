#include "kernels/mlp/mlp_layer.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cstring>

#include "kernels/qgemm/qgemm_kernel.h"
#include "kernels/tgemm/tgemm_kernel.h"
#include "sim/core/echo.h"
#include "sim/io/input_file.h"
#include "sim/numeric/qgemm_reference.h"

namespace treesim::kernels::mlp {

QgemmProblem layer_gemm_problem(const MlpModel& model, std::size_t l, std::uint64_t rows) {
  const MlpLayer& layer = model.layers[l];
  QgemmProblem p;
  p.m = rows, p.n = layer.n, p.k = layer.k;
  p.a_dtype = model.in_dtype(l);
  p.a_zero = model.in_zero_point(l);
  p.b_dtype = core::DType::kInt8;
  p.b_zero = 0;
  p.has_bias = true;
  p.out = output_stage(model, l);
  return p;
}

NetworkPlan load_plan_file(const std::string& path, const MlpModel& model) {
  YAML::Node root;
  try {
    root = YAML::Load(io::read_input_file(path, io::kMaxQuantFileBytes, "plan file"));
  } catch (const io::InputFileError& e) {
    throw MlpModelError(e.what());
  } catch (const YAML::Exception& e) {
    throw MlpModelError(fmt::format("{}:{}: {}", path, e.mark.line + 1, core::echo(e.msg, 200)));
  }
  const auto fail = [&](const YAML::Node& node, const std::string& what) {
    const int line = node.IsDefined() && node.Mark().line >= 0 ? node.Mark().line + 1 : 1;
    throw MlpModelError(fmt::format("{}:{}: {}", path, line, what));
  };
  const YAML::Node layers = root.IsMap() ? root["layers"] : YAML::Node();
  if (!layers.IsMap()) fail(root, "field 'layers': expected a mapping of layer names to layouts");
  NetworkPlan plan;
  for (const auto& entry : layers) {
    const std::string name = entry.first.Scalar();
    bool known = false;
    for (const MlpLayer& l : model.layers) known = known || l.name == name;
    if (!known) fail(entry.first, fmt::format("field 'layers.{}': the model has no layer '{}'", name, name));
    if (!entry.second.IsMap())
      fail(entry.second, fmt::format("field 'layers.{}': expected a mapping with a, b and c", name));
    LayerLayouts& out = plan[name];
    for (const auto& field : entry.second) {
      const std::string key = field.first.Scalar();
      std::string* target = key == "a" ? &out.a : key == "b" ? &out.b : key == "c" ? &out.c : nullptr;
      if (!target) fail(field.first, fmt::format("field 'layers.{}.{}': expected a, b or c", name, key));
      if (!field.second.IsScalar())
        fail(field.second, fmt::format("field 'layers.{}.{}': expected a layout string", name, key));
      *target = field.second.Scalar();
    }
  }
  return plan;
}

std::unique_ptr<Problem> layer_problem(const MlpModel& model, std::size_t l, std::uint64_t rows,
                                       std::vector<std::uint8_t> input, const LayerLayouts& layouts) {
  const MlpLayer& layer = model.layers[l];
  QgemmProblem p = layer_gemm_problem(model, l, rows);
  if (layer.ternary) {
    TgemmOperands ops{std::move(input), layer.weights, int32_bytes(layer.bias), {}};
    return std::make_unique<TgemmInstance>(std::move(p), WeightEncoding::kDpt, std::move(ops),
                                           TgemmInstance::Layouts{layouts.a, layouts.b, layouts.c});
  }
  QgemmOperands ops;
  ops.a = std::move(input);
  ops.b.assign(layer.weights.size(), 0);
  std::memcpy(ops.b.data(), layer.weights.data(), layer.weights.size());
  ops.bias = int32_bytes(layer.bias);
  return std::make_unique<QgemmInstance>(std::move(p), std::move(ops), layouts.a, layouts.b, layouts.c);
}

std::vector<std::vector<std::int32_t>> host_forward(const MlpModel& model, const std::uint8_t* input,
                                                    std::uint64_t rows) {
  std::vector<std::vector<std::int32_t>> outputs;
  std::vector<std::int32_t> a(rows * model.features);
  for (std::size_t i = 0; i < a.size(); ++i)
    a[i] = model.input_dtype == core::DType::kUInt8 ? input[i] : static_cast<std::int8_t>(input[i]);
  for (std::size_t l = 0; l < model.layers.size(); ++l) {
    const MlpLayer& layer = model.layers[l];
    numeric::QGemmParams q;
    q.M = rows, q.N = layer.n, q.K = layer.k;
    q.a_dtype = model.in_dtype(l);
    q.b_dtype = core::DType::kInt8;
    q.a_zero_point = model.in_zero_point(l);
    q.b_zero_point = 0;
    q.out = output_stage(model, l);
    const std::vector<std::int32_t> b(layer.weights.begin(), layer.weights.end());
    outputs.push_back(numeric::reference_qgemm(q, a, b, layer.bias));
    a = outputs.back();
  }
  return outputs;
}

std::vector<std::uint32_t> predictions(const std::vector<std::int32_t>& logits, std::uint64_t classes) {
  std::vector<std::uint32_t> out;
  for (std::size_t r = 0; r + classes <= logits.size(); r += classes) {
    std::uint32_t best = 0;
    for (std::uint32_t c = 1; c < classes; ++c)
      if (logits[r + c] > logits[r + best]) best = c;
    out.push_back(best);
  }
  return out;
}

}  // namespace treesim::kernels::mlp
