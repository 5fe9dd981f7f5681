#include "kernels/mlp/mlp_model.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>

#include "sim/core/echo.h"
#include "sim/io/input_file.h"
#include "sim/io/npy.h"

namespace treesim::kernels::mlp {
namespace {

class Reader {
 public:
  explicit Reader(std::string dir) : dir_(std::move(dir)), file_(dir_ + "/model.yaml") {}

  [[noreturn]] void fail(const YAML::Node& node, const std::string& field,
                         const std::string& expected) const {
    const int line = node.IsDefined() && node.Mark().line >= 0 ? node.Mark().line + 1 : 1;
    throw MlpModelError(fmt::format("{}:{}: field '{}': expected {}", file_, line, field, expected));
  }

  YAML::Node root() const {
    std::string text;
    try {
      text = io::read_input_file(file_, io::kMaxQuantFileBytes, "model file");
      YAML::Node root = YAML::Load(text);
      if (!root.IsMap()) throw MlpModelError(file_ + ": expected a mapping with 'input' and 'layers'");
      return root;
    } catch (const io::InputFileError& e) {
      throw MlpModelError(e.what());
    } catch (const YAML::Exception& e) {
      throw MlpModelError(fmt::format("{}:{}: {}", file_, e.mark.line + 1, core::echo(e.msg, 200)));
    }
  }

  const YAML::Node& need(const YAML::Node& node, const std::string& field) const {
    if (!node.IsDefined() || node.IsNull()) fail(node, field, "a value (it is missing)");
    return node;
  }

  std::string text(const YAML::Node& node, const std::string& field) const {
    if (!need(node, field).IsScalar()) fail(node, field, "a name");
    return node.Scalar();
  }

  double number(const YAML::Node& node, const std::string& field) const {
    try {
      return need(node, field).as<double>();
    } catch (const YAML::Exception&) {
      fail(node, field, "a number");
    }
  }

  float scale(const YAML::Node& node, const std::string& field) const {
    const double v = number(node, field);
    const float f = static_cast<float>(v);
    if (!(std::isfinite(f) && f > 0)) fail(node, field, "a positive finite scale");
    return f;
  }

  std::int32_t int8_value(const YAML::Node& node, const std::string& field) const {
    const double v = number(node, field);
    if (v != std::floor(v) || v < -128 || v > 127) fail(node, field, "an integer in [-128, 127]");
    return static_cast<std::int32_t>(v);
  }

  bool boolean(const YAML::Node& node, const std::string& field) const {
    try {
      return need(node, field).as<bool>();
    } catch (const YAML::Exception&) {
      fail(node, field, "true or false");
    }
  }

  // A .npy file the model names, of `dtype` and `shape`.
  io::NpyArray array(const YAML::Node& node, const std::string& field, core::DType dtype,
                     const std::vector<std::uint64_t>& shape) const {
    const std::string path = dir_ + "/" + text(node, field);
    io::NpyArray a;
    try {
      a = io::read_npy(path);
    } catch (const std::runtime_error& e) {
      throw MlpModelError(e.what());
    }
    if (a.dtype != dtype || a.shape != shape)
      throw MlpModelError(fmt::format("{}: expected {} of shape {} (field '{}' of {}), got {} {}", path,
                                      core::dtype_name(dtype), io::shape_string(shape), field, file_,
                                      core::dtype_name(a.dtype), io::shape_string(a.shape)));
    return a;
  }

 private:
  std::string dir_, file_;
};

}  // namespace

MlpModel load_mlp_model(const std::string& dir) {
  const Reader r(dir);
  const YAML::Node root = r.root();
  MlpModel m;
  m.name = root["name"] ? r.text(root["name"], "name") : dir;
  if (root["float_accuracy"]) m.float_accuracy = r.number(root["float_accuracy"], "float_accuracy");
  const YAML::Node input = r.need(root["input"], "input");
  const double features = r.number(input["features"], "input.features");
  if (features < 1 || features != std::floor(features) || features > 1e6)
    r.fail(input["features"], "input.features", "an integer in [1, 1000000]");
  m.features = static_cast<std::uint64_t>(features);
  const std::string dtype = r.text(input["dtype"], "input.dtype");
  if (dtype != "uint8" && dtype != "int8") r.fail(input["dtype"], "input.dtype", "uint8 or int8");
  m.input_dtype = dtype == "uint8" ? core::DType::kUInt8 : core::DType::kInt8;
  m.input_scale = r.scale(input["scale"], "input.scale");
  m.input_zero_point = static_cast<std::int32_t>(r.number(input["zero_point"], "input.zero_point"));
  if (!numeric::in_range(m.input_zero_point, m.input_dtype))
    r.fail(input["zero_point"], "input.zero_point", "a zero point inside input.dtype's range");
  const YAML::Node layers = r.need(root["layers"], "layers");
  if (!layers.IsSequence() || layers.size() == 0) r.fail(layers, "layers", "a list of at least one layer");
  std::uint64_t k = m.features;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const YAML::Node& y = layers[i];
    const std::string at = fmt::format("layers[{}].", i);
    MlpLayer l;
    l.name = r.text(y["name"], at + "name");
    const std::string kind = r.text(y["kind"], at + "kind");
    if (kind != "int8" && kind != "ternary") r.fail(y["kind"], at + "kind", "int8 or ternary");
    l.ternary = kind == "ternary";
    l.k = k;
    const io::NpyArray w = [&] {
      io::NpyArray a;
      try {
        a = io::read_npy(std::string(dir) + "/" + r.text(y["weights"], at + "weights"));
      } catch (const std::runtime_error& e) {
        throw MlpModelError(e.what());
      }
      return a;
    }();
    if (w.dtype != core::DType::kInt8 || w.shape.size() != 2 || w.shape[0] != k || w.shape[1] == 0)
      r.fail(y["weights"], at + "weights",
             fmt::format("an int8 .npy of shape ({}, N), the layer's inputs by its outputs; got {} {}", k,
                         core::dtype_name(w.dtype), io::shape_string(w.shape)));
    l.n = w.shape[1];
    l.weights = io::npy_values<std::int8_t>(w, at + "weights");
    if (l.ternary &&
        std::any_of(l.weights.begin(), l.weights.end(), [](std::int8_t v) { return v < -1 || v > 1; }))
      r.fail(y["weights"], at + "weights", "ternary weights (-1, 0, +1) for kind ternary");
    l.weight_scale = io::npy_values<float>(
        r.array(y["weight_scale"], at + "weight_scale", core::DType::kFloat32, {l.n}), at + "weight_scale");
    for (float s : l.weight_scale)
      if (!(std::isfinite(s) && s > 0))
        r.fail(y["weight_scale"], at + "weight_scale", "positive finite scales");
    l.bias = io::npy_values<std::int32_t>(r.array(y["bias"], at + "bias", core::DType::kInt32, {l.n}),
                                          at + "bias");
    const YAML::Node out = r.need(y["out"], at + "out");
    l.out_scale = r.scale(out["scale"], at + "out.scale");
    l.out_zero_point = r.int8_value(out["zero_point"], at + "out.zero_point");
    l.relu = r.boolean(out["relu"], at + "out.relu");
    k = l.n;
    m.layers.push_back(std::move(l));
  }
  return m;
}

numeric::OutputStage output_stage(const MlpModel& model, std::size_t l) {
  const MlpLayer& layer = model.layers[l];
  numeric::OutputStage s;
  s.multipliers.clear();
  for (float ws : layer.weight_scale)
    s.multipliers.push_back(
        numeric::quantize_multiplier(static_cast<double>(model.in_scale(l)) * static_cast<double>(ws) /
                                     static_cast<double>(layer.out_scale)));
  s.out_dtype = core::DType::kInt8;
  s.out_zero_point = layer.out_zero_point;
  s.act_min = layer.relu ? layer.out_zero_point : -128;
  s.act_max = 127;
  return s;
}

}  // namespace treesim::kernels::mlp
