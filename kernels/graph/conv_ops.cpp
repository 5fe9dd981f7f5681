#include "kernels/graph/conv_ops.h"

#include <cmath>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "kernels/graph/machine_ops.h"
#include "kernels/graph/onnx_file.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/pool/pool.h"
#include "sim/numeric/fixed_point.h"

namespace treesim::graph {
namespace {

Attribute ints_value(std::vector<std::int64_t> v) {
  Attribute a;
  a.kind = Attribute::Kind::kInts;
  a.ints = std::move(v);
  return a;
}

// A 4-D tensor with its axes permuted (the host's Transpose).
kernels::Result<Tensor> permuted(const Node& n, const Tensor& t, std::vector<std::int64_t> perm) {
  Node tn;
  tn.name = n.name;
  tn.op_type = "Transpose";
  tn.attributes["perm"] = ints_value(std::move(perm));
  return run_host_op(tn, {&t});
}

// Two values of an ints attribute (rows, columns), its default when absent.
kernels::Result<std::pair<std::uint64_t, std::uint64_t>> pair_attribute(const Node& n, const char* name,
                                                                        std::uint64_t fallback) {
  auto v = ints_attribute(n, name);
  if (!v) return std::pair{fallback, fallback};
  if (v->size() != 2 || (*v)[0] < 1 || (*v)[1] < 1 || (*v)[0] > (1 << 24) || (*v)[1] > (1 << 24))
    return node_error(n, fmt::format("{} must be two positive numbers (a 2-D convolution)", name));
  return std::pair{static_cast<std::uint64_t>((*v)[0]), static_cast<std::uint64_t>((*v)[1])};
}

// A window's geometry from x (NCHW), the kernel's size and the attributes (strides, dilations,
// pads or auto_pad): a convolution's (w M×Cg×R×S) or a pooling's (kernel_shape, k = c).
kernels::Result<kernels::ConvShape> window_shape(const Node& n, const Tensor& x, std::uint64_t k,
                                                 std::uint64_t r, std::uint64_t s_cols,
                                                 std::uint64_t groups) {
  kernels::ConvShape s;
  s.n = x.shape[0], s.c = x.shape[1], s.h = x.shape[2], s.w = x.shape[3];
  s.k = k, s.r = r, s.s = s_cols, s.groups = groups;
  auto strides = pair_attribute(n, "strides", 1);
  auto dilations = pair_attribute(n, "dilations", 1);
  if (!strides) return strides.errors();
  if (!dilations) return dilations.errors();
  s.stride_h = strides->first, s.stride_w = strides->second;
  s.dilation_h = dilations->first, s.dilation_w = dilations->second;
  std::string auto_pad = "NOTSET";
  if (auto it = n.attributes.find("auto_pad"); it != n.attributes.end()) auto_pad = it->second.s;
  if (auto_pad == "NOTSET") {
    if (auto pads = ints_attribute(n, "pads")) {
      if (pads->size() != 4) return node_error(n, "pads must have 4 values (top, left, bottom, right)");
      for (std::int64_t p : *pads)
        if (p < 0 || p > (1 << 24)) return node_error(n, fmt::format("a pad of {} is not supported", p));
      s.pad_top = static_cast<std::uint64_t>((*pads)[0]), s.pad_left = static_cast<std::uint64_t>((*pads)[1]);
      s.pad_bottom = static_cast<std::uint64_t>((*pads)[2]),
      s.pad_right = static_cast<std::uint64_t>((*pads)[3]);
    }
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    const kernels::AxisPad ph = kernels::same_padding(s.h, s.r, s.stride_h, s.dilation_h);
    const kernels::AxisPad pw = kernels::same_padding(s.w, s.s, s.stride_w, s.dilation_w);
    const bool lower = auto_pad == "SAME_LOWER";  // the odd pixel at the start
    s.pad_top = lower ? ph.end : ph.begin, s.pad_bottom = lower ? ph.begin : ph.end;
    s.pad_left = lower ? pw.end : pw.begin, s.pad_right = lower ? pw.begin : pw.end;
  } else if (auto_pad != "VALID") {
    return node_error(n, fmt::format("auto_pad '{}' is not supported", auto_pad));
  }
  if (core::Errors e = kernels::conv_shape_errors(s); !e.empty())
    return node_error(n, "the window's shape: " + e.front().what);
  return s;
}

// The convolution's shape from x (NCHW), w (M×Cg×R×S) and the attributes.
kernels::Result<kernels::ConvShape> conv_shape(const Node& n, const Tensor& x, const Tensor& w) {
  if (x.shape.size() != 4 || w.shape.size() != 4)
    return node_error(n, fmt::format("only 2-D convolutions run (x {} and w {} must have rank 4)",
                                     describe(x), describe(w)));
  const std::int64_t group = int_attribute(n, "group").value_or(1);
  if (group < 1 || group > (1 << 24)) return node_error(n, fmt::format("group {} must be positive", group));
  const std::uint64_t groups = static_cast<std::uint64_t>(group);
  if (x.shape[1] % groups != 0 || w.shape[1] != x.shape[1] / groups)
    return node_error(n,
                      fmt::format("w {} does not match x {} in {} groups", describe(w), describe(x), groups));
  if (auto ks = ints_attribute(n, "kernel_shape");
      ks && (ks->size() != 2 || static_cast<std::uint64_t>((*ks)[0]) != w.shape[2] ||
             static_cast<std::uint64_t>((*ks)[1]) != w.shape[3]))
    return node_error(n, "kernel_shape does not match w");
  return window_shape(n, x, w.shape[0], w.shape[2], w.shape[3], groups);
}

}  // namespace

bool is_conv(const Node& n) {
  return n.op_type == "QLinearConv" || n.op_type == "ConvInteger" ||
         (n.domain == "treesim" && n.op_type == "QConv");
}

kernels::Result<NodeProblem> conv_node_problem(const Node& n, const Inputs& in) {
  const bool integer = n.op_type == "ConvInteger", fused = n.domain == "treesim";
  const std::size_t w_at = integer ? 1 : 3;
  auto x = required(n, in, 0, "x");
  auto w = required(n, in, w_at, "w");
  if (!x) return x.errors();
  if (!w) return w.errors();
  kernels::Result<kernels::ConvShape> shape = conv_shape(n, *x.value(), *w.value());
  if (!shape) return shape.errors();
  const kernels::ConvShape& s = shape.value();
  if (s.n * s.out_h() * s.out_w() * s.k > kMaxTensorBytes / 4)
    return node_error(
        n, fmt::format("its output of {}×{}×{}×{} is more than 1 GiB", s.n, s.k, s.out_h(), s.out_w()));
  // The quantization is a GEMM's of the convolution's matrices (K = Cg·R·S taps, N = M filters):
  // prepare_gemm checks the scales, zero points, bias and clamp as for QLinearMatMul, and turns w
  // (M×K) into the B matrix (K×M) the kernel takes.
  const std::uint64_t taps = s.gemm_k();
  Tensor w2 = *w.value();
  w2.shape = {s.k, taps};
  Tensor a = make_tensor(x.value()->type, {1, taps});
  Inputs gin = in;
  if (!integer && !fused && gin.size() > 8) gin.resize(8);  // QLinearConv's bias: below
  gin[0] = &a;
  gin[w_at] = &w2;
  Node as_gemm = n;
  Attribute trans;
  trans.kind = Attribute::Kind::kInt;
  trans.i = 1;
  as_gemm.attributes = {{"transB", trans}};
  if (fused) {
    for (const char* keep : {"relu", "clip_min", "clip_max"})
      if (auto it = n.attributes.find(keep); it != n.attributes.end()) as_gemm.attributes[keep] = it->second;
  }
  kernels::Result<PreparedGemm> g = prepare_gemm(as_gemm, gin);
  if (!g) return g.errors();
  const kernels::QgemmProblem& p = g->problem;

  kernels::ConvQuant q;
  q.x_dtype = p.a_dtype, q.w_dtype = p.b_dtype;
  q.x_zero = p.a_zero, q.w_zero = p.b_zero;
  q.int32_out = p.int32_out;
  q.out = p.out;
  kernels::ConvOperands ops;
  kernels::Result<Tensor> nhwc = permuted(n, *x.value(), {0, 2, 3, 1});
  if (!nhwc) return nhwc.errors();
  ops.x = std::move(nhwc->bytes);
  ops.w = std::move(g->b);
  std::vector<std::uint8_t> bias = std::move(g->bias);
  if (!integer && !fused && in.size() > 8 && in[8]) {  // QLinearConv's B: int32, scale x_scale·w_scale
    if (in[8]->type != ElemType::kInt32 || in[8]->count() != s.k)
      return node_error(n, fmt::format("B must be int32 with {} elements, got {}", s.k, describe(*in[8])));
    bias = in[8]->bytes;
  }
  ops.bias.resize(bias.size() / 4);
  if (!bias.empty()) std::memcpy(ops.bias.data(), bias.data(), bias.size());

  kernels::Result<std::unique_ptr<kernels::Problem>> problem = kernels::conv2d_problem(s, q, std::move(ops));
  if (!problem) return node_error(n, problem.errors().front().message());
  NodeProblem out;
  out.problem = std::move(problem.value());
  out.kernel = "conv2d";
  out.reads = {{0, "A"}};
  out.output = "C";
  out.out = Tensor{g->out_type, {s.n, s.k, s.out_h(), s.out_w()}, {}};
  out.nhwc = true;
  return out;
}

bool is_pool(const Node& n) {
  return n.op_type == "MaxPool" ||
         (n.domain == "treesim" &&
          (n.op_type == "QMaxPool" || n.op_type == "QAveragePool" || n.op_type == "QGlobalAveragePool"));
}

kernels::Result<NodeProblem> pool_node_problem(const Node& n, const Inputs& in) {
  const bool fused = n.domain == "treesim", global = n.op_type == "QGlobalAveragePool";
  const bool average = global || n.op_type == "QAveragePool";
  auto x = required(n, in, 0, "x");
  if (!x) return x.errors();
  const Tensor& t = *x.value();
  if (t.type != ElemType::kUInt8 && t.type != ElemType::kInt8)
    return node_error(
        n, fmt::format("x is {}: the machine pools int8 or uint8 codes (a float pool runs only between "
                       "DequantizeLinear and QuantizeLinear)",
                       describe(t)));
  if (t.shape.size() != 4)
    return node_error(n, fmt::format("only 2-D pooling runs (x {} must have rank 4)", describe(t)));
  TensorQuant xq, yq;
  if (fused) {
    auto xr = tensor_quant(n, in, 1, "x", t.type);
    if (!xr) return xr.errors();
    auto yr = tensor_quant(n, in, 3, "y", std::nullopt);
    if (!yr) return yr.errors();
    xq = xr.value(), yq = yr.value();
    if (!average && (xq.scale != yq.scale || xq.zero != yq.zero || xq.type != yq.type))
      return node_error(n, "y's quantization differs from x's: a requantizing max is not supported");
  }
  if (int_attribute(n, "ceil_mode").value_or(0) != 0) return node_error(n, "ceil_mode 1 is not supported");
  if (int_attribute(n, "storage_order").value_or(0) != 0)
    return node_error(n, "storage_order 1 is not supported");
  std::uint64_t r = t.shape[2], s_cols = t.shape[3];  // GlobalAveragePool: the whole image
  if (!global) {
    auto ks = ints_attribute(n, "kernel_shape");
    if (!ks || ks->size() != 2 || (*ks)[0] < 1 || (*ks)[1] < 1 || (*ks)[0] > (1 << 24) ||
        (*ks)[1] > (1 << 24))
      return node_error(n, "kernel_shape must be two positive numbers");
    r = static_cast<std::uint64_t>((*ks)[0]), s_cols = static_cast<std::uint64_t>((*ks)[1]);
  }
  kernels::Result<kernels::ConvShape> shape = window_shape(n, t, t.shape[1], r, s_cols, 1);
  if (!shape) return shape.errors();
  const kernels::ConvShape& s = shape.value();
  const bool padded = s.pad_top + s.pad_left + s.pad_bottom + s.pad_right > 0;
  if (average && padded && int_attribute(n, "count_include_pad").value_or(0) == 0)
    return node_error(n,
                      "count_include_pad 0 with padding is not supported (the divisor would change at the "
                      "border); only whole windows, or count_include_pad 1");
  if (s.n * s.out_h() * s.out_w() * s.c > kMaxTensorBytes)
    return node_error(
        n, fmt::format("its output of {}×{}×{}×{} is more than 1 GiB", s.n, s.c, s.out_h(), s.out_w()));
  kernels::Result<Tensor> nhwc = permuted(n, t, {0, 2, 3, 1});
  if (!nhwc) return nhwc.errors();
  kernels::Result<std::unique_ptr<kernels::Problem>> problem = core::Error{"", ""};
  ElemType out_type = t.type;
  if (average) {
    // ONNX Runtime's float requant of the window sum: m = fl32(x_scale / (y_scale · taps)).
    kernels::AvgPoolQuant q;
    q.x_dtype = *machine_dtype(t.type), q.x_zero = xq.zero;
    q.out.rounding = numeric::Rounding::kFloat;
    q.out.multipliers = {numeric::quantize_multiplier(xq.scale / (yq.scale * static_cast<double>(s.r * s.s)),
                                                      numeric::Rounding::kFloat)};
    q.out.out_dtype = *machine_dtype(yq.type), q.out.out_zero_point = yq.zero;
    q.out.act_min = yq.type == ElemType::kUInt8 ? 0 : -128, q.out.act_max = q.out.act_min + 255;
    problem = kernels::avgpool_problem(s, q, std::move(nhwc->bytes));
    out_type = yq.type;
  } else {
    problem = kernels::maxpool_problem(s, *machine_dtype(t.type), std::move(nhwc->bytes));
  }
  if (!problem) return node_error(n, problem.errors().front().message());
  NodeProblem out;
  out.problem = std::move(problem.value());
  out.kernel = average ? "avgpool" : "maxpool";
  out.reads = {{0, "X"}};
  out.output = "Y";
  out.out = Tensor{out_type, {s.n, s.c, s.out_h(), s.out_w()}, {}};
  out.nhwc = true;
  return out;
}

}  // namespace treesim::graph
