#include "kernels/graph/host_ops.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "sim/core/checked.h"

namespace treesim::graph {

core::Error node_error(const Node& node, std::string what) {
  return {"node " + node_label(node), std::move(what)};
}

kernels::Result<const Tensor*> required(const Node& node, const Inputs& in, std::size_t i, const char* what) {
  if (i >= in.size() || !in[i]) return node_error(node, fmt::format("input {} ({}) is missing", i, what));
  return in[i];
}

namespace {

// An axis in [-rank, rank) as [0, rank).
kernels::Result<std::size_t> axis_of(const Node& n, std::int64_t axis, std::size_t rank, const char* what) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r)
    return node_error(n, fmt::format("{} {} is outside [{}, {}) for rank {}", what, axis, -r, r, rank));
  return static_cast<std::size_t>(axis < 0 ? axis + r : axis);
}

Tensor reshaped(const Tensor& t, std::vector<std::uint64_t> shape) {
  Tensor r = t;
  r.shape = std::move(shape);
  return r;
}

kernels::Result<std::vector<std::int64_t>> int64_values(const Node& n, const Tensor& t, const char* what) {
  if (t.type != ElemType::kInt64)
    return node_error(n, fmt::format("{} must be int64, got {}", what, describe(t)));
  std::vector<std::int64_t> v;
  for (std::uint64_t i = 0; i < t.count(); ++i) v.push_back(t.integer(i));
  return v;
}

kernels::Result<Tensor> reshape(const Node& n, const Inputs& in) {
  auto data = required(n, in, 0, "data");
  auto shape_in = required(n, in, 1, "shape");
  if (!data) return data.errors();
  if (!shape_in) return shape_in.errors();
  auto dims = int64_values(n, *shape_in.value(), "shape");
  if (!dims) return dims.errors();
  const bool allowzero = int_attribute(n, "allowzero").value_or(0) != 0;
  const Tensor& t = *data.value();
  std::vector<std::uint64_t> out;
  std::optional<std::size_t> infer;
  std::uint64_t known = 1;
  for (std::size_t i = 0; i < dims->size(); ++i) {
    std::int64_t d = (dims.value())[i];
    if (d == 0 && !allowzero) {
      if (i >= t.shape.size())
        return node_error(n, fmt::format("shape[{}] = 0 copies a dimension the input does not have", i));
      d = static_cast<std::int64_t>(t.shape[i]);
    }
    if (d == -1) {
      if (infer) return node_error(n, "shape has more than one -1");
      infer = i;
      out.push_back(1);
      continue;
    }
    if (d < 0) return node_error(n, fmt::format("shape[{}] = {} (expected -1 or a size)", i, d));
    out.push_back(static_cast<std::uint64_t>(d));
    // Checked, so that a product cannot wrap round onto the input's count.
    const auto product = core::checked_mul(known, static_cast<std::uint64_t>(d));
    if (!product) return node_error(n, fmt::format("shape up to [{}] has more than 2^64 elements", i));
    known = *product;
  }
  if (infer) {
    if (known == 0 || t.count() % known != 0)
      return node_error(
          n, fmt::format("cannot reshape {} to {} (-1 has no whole size)", describe(t), shape_text(out)));
    out[*infer] = t.count() / known;
    known *= out[*infer];
  }
  if (known != t.count())
    return node_error(
        n, fmt::format("cannot reshape {} ({} elements) to {}", describe(t), t.count(), shape_text(out)));
  return reshaped(t, out);
}

kernels::Result<Tensor> flatten(const Node& n, const Inputs& in) {
  auto data = required(n, in, 0, "input");
  if (!data) return data.errors();
  const Tensor& t = *data.value();
  const std::int64_t axis = int_attribute(n, "axis").value_or(1);
  const auto r = static_cast<std::int64_t>(t.shape.size());
  if (axis < -r || axis > r) return node_error(n, fmt::format("axis {} is outside [{}, {}]", axis, -r, r));
  const auto a = static_cast<std::size_t>(axis < 0 ? axis + r : axis);
  std::uint64_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < t.shape.size(); ++i) (i < a ? outer : inner) *= t.shape[i];
  return reshaped(t, {outer, inner});
}

// Squeeze's and Unsqueeze's axes: the input (opset 13) or the attribute.
kernels::Result<std::optional<std::vector<std::int64_t>>> axes_of(const Node& n, const Inputs& in) {
  if (in.size() > 1 && in[1]) {
    auto v = int64_values(n, *in[1], "axes");
    if (!v) return v.errors();
    return std::optional<std::vector<std::int64_t>>(v.value());
  }
  return ints_attribute(n, "axes");
}

kernels::Result<Tensor> squeeze(const Node& n, const Inputs& in) {
  auto data = required(n, in, 0, "data");
  if (!data) return data.errors();
  const Tensor& t = *data.value();
  auto axes = axes_of(n, in);
  if (!axes) return axes.errors();
  std::vector<bool> drop(t.shape.size(), false);
  if (!axes.value()) {
    for (std::size_t i = 0; i < t.shape.size(); ++i) drop[i] = t.shape[i] == 1;
  } else {
    for (std::int64_t a : *axes.value()) {
      auto ax = axis_of(n, a, t.shape.size(), "axis");
      if (!ax) return ax.errors();
      if (t.shape[ax.value()] != 1)
        return node_error(n, fmt::format("axis {} has size {}, not 1", a, t.shape[ax.value()]));
      drop[ax.value()] = true;
    }
  }
  std::vector<std::uint64_t> out;
  for (std::size_t i = 0; i < t.shape.size(); ++i)
    if (!drop[i]) out.push_back(t.shape[i]);
  return reshaped(t, out);
}

kernels::Result<Tensor> unsqueeze(const Node& n, const Inputs& in) {
  auto data = required(n, in, 0, "data");
  if (!data) return data.errors();
  const Tensor& t = *data.value();
  auto axes = axes_of(n, in);
  if (!axes) return axes.errors();
  if (!axes.value()) return node_error(n, "axes are missing");
  const std::size_t rank = t.shape.size() + axes.value()->size();
  std::vector<bool> one(rank, false);
  for (std::int64_t a : *axes.value()) {
    auto ax = axis_of(n, a, rank, "axis");
    if (!ax) return ax.errors();
    if (one[ax.value()]) return node_error(n, fmt::format("axis {} is given twice", a));
    one[ax.value()] = true;
  }
  std::vector<std::uint64_t> out;
  std::size_t next = 0;
  for (std::size_t i = 0; i < rank; ++i) out.push_back(one[i] ? 1 : t.shape[next++]);
  return reshaped(t, out);
}

kernels::Result<Tensor> transpose(const Node& n, const Inputs& in) {
  auto data = required(n, in, 0, "data");
  if (!data) return data.errors();
  const Tensor& t = *data.value();
  const std::size_t rank = t.shape.size();
  std::vector<std::size_t> perm(rank);
  if (auto p = ints_attribute(n, "perm")) {
    if (p->size() != rank)
      return node_error(n, fmt::format("perm has {} entries for rank {}", p->size(), rank));
    std::vector<bool> seen(rank, false);
    for (std::size_t i = 0; i < rank; ++i) {
      auto ax = axis_of(n, (*p)[i], rank, "perm entry");
      if (!ax) return ax.errors();
      if (seen[ax.value()]) return node_error(n, fmt::format("perm names axis {} twice", ax.value()));
      seen[ax.value()] = true;
      perm[i] = ax.value();
    }
  } else {
    for (std::size_t i = 0; i < rank; ++i) perm[i] = rank - 1 - i;
  }
  std::vector<std::uint64_t> out_shape(rank), in_strides(rank, 1);
  for (std::size_t i = rank; i-- > 1;) in_strides[i - 1] = in_strides[i] * t.shape[i];
  for (std::size_t i = 0; i < rank; ++i) out_shape[i] = t.shape[perm[i]];
  Tensor r = make_tensor(t.type, out_shape);
  const std::size_t eb = elem_bytes(t.type);
  std::vector<std::uint64_t> idx(rank, 0);
  for (std::uint64_t o = 0; o < r.count(); ++o) {
    std::uint64_t src = 0;
    for (std::size_t i = 0; i < rank; ++i) src += idx[i] * in_strides[perm[i]];
    std::copy_n(t.bytes.data() + src * eb, eb, r.bytes.data() + o * eb);
    for (std::size_t i = rank; i-- > 0;) {
      if (++idx[i] < out_shape[i]) break;
      idx[i] = 0;
    }
  }
  return r;
}

// The scale and zero point of element i under Quantize/DequantizeLinear's axis (per tensor when the
// scale has one element).
struct QuantParams {
  const Tensor* scale;
  const Tensor* zero;  // may be null
  std::size_t axis = 0;
  std::uint64_t inner = 1;  // elements per step of the axis
  bool per_axis = false;
  std::uint64_t channel(std::uint64_t i) const { return per_axis ? (i / inner) % scale->count() : 0; }
};

kernels::Result<QuantParams> quant_params(const Node& n, const Tensor& x, const Tensor& scale,
                                          const Tensor* zero) {
  if (scale.type != ElemType::kFloat32)
    return node_error(n, fmt::format("scale must be float32, got {}", describe(scale)));
  if (scale.count() == 0) return node_error(n, "scale has no element");
  for (std::uint64_t c = 0; c < scale.count(); ++c)
    if (!(scale.real(c) > 0) || !std::isfinite(scale.real(c)))
      return node_error(n,
                        fmt::format("scale[{}] = {} (expected a finite positive number)", c, scale.real(c)));
  QuantParams q{&scale, zero};
  if (scale.count() != 1) {
    auto ax = axis_of(n, int_attribute(n, "axis").value_or(1), x.shape.size(), "axis");
    if (!ax) return ax.errors();
    if (scale.shape.size() != 1 || scale.shape[0] != x.shape[ax.value()])
      return node_error(
          n, fmt::format("scale {} does not match axis {} of {}", describe(scale), ax.value(), describe(x)));
    q.axis = ax.value();
    q.per_axis = true;
    for (std::size_t i = ax.value() + 1; i < x.shape.size(); ++i) q.inner *= x.shape[i];
  }
  if (zero && zero->count() != scale.count())
    return node_error(n,
                      fmt::format("zero point {} does not match scale {}", describe(*zero), describe(scale)));
  return q;
}

kernels::Result<Tensor> quantize_linear(const Node& n, const Inputs& in) {
  auto x = required(n, in, 0, "x");
  auto s = required(n, in, 1, "y_scale");
  if (!x) return x.errors();
  if (!s) return s.errors();
  const Tensor* zero = in.size() > 2 ? in[2] : nullptr;
  if ((x.value())->type != ElemType::kFloat32 && (x.value())->type != ElemType::kInt32)
    return node_error(n, fmt::format("x must be float32 or int32, got {}", describe(*x.value())));
  const ElemType out = zero ? zero->type : ElemType::kUInt8;
  if (out != ElemType::kUInt8 && out != ElemType::kInt8)
    return node_error(n, fmt::format("y_zero_point must be uint8 or int8, got {}", describe(*zero)));
  auto q = quant_params(n, *x.value(), *s.value(), zero);
  if (!q) return q.errors();
  const double lo = out == ElemType::kUInt8 ? 0 : -128, hi = out == ElemType::kUInt8 ? 255 : 127;
  Tensor y = make_tensor(out, (x.value())->shape);
  for (std::uint64_t i = 0; i < y.count(); ++i) {
    const std::uint64_t c = q->channel(i);
    // float32 division, rounded to nearest with ties to even (ONNX's reference: np.rint(x / scale)).
    const float quotient = static_cast<float>((x.value())->real(i)) / static_cast<float>(q->scale->real(c));
    // NaN quantizes to the zero point (as ONNX Runtime's saturating cast does); ±inf saturates.
    double v = (std::isnan(quotient) ? 0.0 : std::nearbyint(static_cast<double>(quotient))) +
               (zero ? static_cast<double>(zero->integer(c)) : 0.0);
    v = v < lo ? lo : v > hi ? hi : v;
    set_integer(y, i, static_cast<std::int64_t>(v));
  }
  return y;
}

kernels::Result<Tensor> dequantize_linear(const Node& n, const Inputs& in) {
  auto x = required(n, in, 0, "x");
  auto s = required(n, in, 1, "x_scale");
  if (!x) return x.errors();
  if (!s) return s.errors();
  const Tensor* zero = in.size() > 2 ? in[2] : nullptr;
  const ElemType t = (x.value())->type;
  if (t != ElemType::kUInt8 && t != ElemType::kInt8 && t != ElemType::kInt32)
    return node_error(n, fmt::format("x must be uint8, int8 or int32, got {}", describe(*x.value())));
  if (zero && zero->type != t)
    return node_error(n, fmt::format("x_zero_point {} is not of x's type {}", describe(*zero), elem_name(t)));
  auto q = quant_params(n, *x.value(), *s.value(), zero);
  if (!q) return q.errors();
  Tensor y = make_tensor(ElemType::kFloat32, (x.value())->shape);
  for (std::uint64_t i = 0; i < y.count(); ++i) {
    const std::uint64_t c = q->channel(i);
    const std::int64_t centred = (x.value())->integer(i) - (zero ? zero->integer(c) : 0);
    set_real(y, i, static_cast<float>(centred) * static_cast<float>(q->scale->real(c)));
  }
  return y;
}

}  // namespace

kernels::Result<Tensor> run_host_op(const Node& node, const Inputs& in) {
  const std::string& op = node.op_type;
  if (op == "Reshape") return reshape(node, in);
  if (op == "Flatten") return flatten(node, in);
  if (op == "Squeeze") return squeeze(node, in);
  if (op == "Unsqueeze") return unsqueeze(node, in);
  if (op == "Transpose") return transpose(node, in);
  if (op == "QuantizeLinear") return quantize_linear(node, in);
  if (op == "DequantizeLinear") return dequantize_linear(node, in);
  return node_error(node, "not a host operator");
}

}  // namespace treesim::graph
