#include "kernels/graph/machine_ops.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "kernels/chain/gemm_network.h"
#include "kernels/graph/onnx_file.h"
#include "kernels/qgemm/qgemm_kernel.h"
#include "sim/core/checked.h"
#include "sim/core/echo.h"
#include "sim/numeric/fixed_point.h"

namespace treesim::graph {
namespace {

// A per-tensor value (one element) of a quantization input.
kernels::Result<double> scalar(const Node& n, const Tensor& t, const char* what) {
  if (t.count() != 1)
    return node_error(n, fmt::format("{} must have one element, got {}", what, describe(t)));
  return t.real(0);
}

bool is_8bit(ElemType t) { return t == ElemType::kUInt8 || t == ElemType::kInt8; }

}  // namespace

kernels::Result<PreparedGemm> prepare_gemm(const Node& n, const Inputs& in) {
  const char* names[] = {"a",       "a_scale",      "a_zero_point", "b",
                         "b_scale", "b_zero_point", "y_scale",      "y_zero_point"};
  // MatMulInteger (a, b, a_zero_point, b_zero_point → int32) takes QLinearMatMul's places without
  // scales: its C is the accumulators.
  const bool integer = n.op_type == "MatMulInteger" || n.op_type == "ConvInteger";
  const bool fused = n.domain == "treesim";  // kernels/graph/fuse.h's QGemm: bias and Clip inputs too
  const std::size_t most = fused ? 13 : integer ? 4 : 8;
  if (in.size() > most)
    return node_error(
        n, fmt::format("has {} inputs; {} takes at most {}", in.size(), core::echo(n.op_type), most));
  Inputs qin = in;
  if (integer)
    qin = {in.size() > 0 ? in[0] : nullptr, nullptr, in.size() > 2 ? in[2] : nullptr,
           in.size() > 1 ? in[1] : nullptr, nullptr, in.size() > 3 ? in[3] : nullptr};
  std::vector<const Tensor*> t(8);
  for (std::size_t i : {0, 1, 3, 4, 6}) {
    if (integer && (i == 1 || i == 4 || i == 6)) continue;
    auto r = required(n, qin, i, names[i]);
    if (!r) return r.errors();
    t[i] = r.value();
  }
  // An omitted zero point is 0 of its tensor's type (uint8 for y, as QuantizeLinear's default).
  Tensor zeros[3] = {make_tensor(t[0]->type, {}), make_tensor(t[3]->type, {}),
                     make_tensor(ElemType::kUInt8, {})};
  for (std::size_t z = 0; z < 3; ++z) {
    const std::size_t i = z == 0 ? 2 : z == 1 ? 5 : 7;
    t[i] = i < qin.size() && qin[i] ? qin[i] : &zeros[z];
  }
  // A fused Q/DQ GEMM (kernels/graph/fuse.h) adds an int32 bias (input 8), a ReLU and a transposed B.
  const Tensor* bias = fused && in.size() > 8 ? in[8] : nullptr;
  if (bias) {
    // The bias is added to the accumulators as it is: its scale must be a_scale·b_scale (per column
    // where b's is) and its zero point 0, as ONNX Runtime's QDQ fusion requires.
    const Tensor* bs = in.size() > 9 ? in[9] : nullptr;
    const Tensor* bz = in.size() > 10 ? in[10] : nullptr;
    if (!bs || bs->type != ElemType::kFloat32 || !t[1] || t[1]->count() != 1)
      return node_error(n, "the bias needs a float32 scale and a per-tensor a_scale");
    if (bs->count() == 0 || (t[4]->count() != 1 && bs->count() != t[4]->count()))
      return node_error(n, fmt::format("the bias scale has {} values for b's {} column scales", bs->count(),
                                       t[4]->count()));
    for (std::uint64_t c = 0; c < bs->count(); ++c) {
      const double want = static_cast<float>(t[1]->real(0) * t[4]->real(t[4]->count() == 1 ? 0 : c));
      if (std::fabs(bs->real(c) - want) > 1e-6 * std::fabs(want))
        return node_error(
            n, fmt::format("bias scale[{}] = {} is not a_scale·b_scale = {}", c, bs->real(c), want));
    }
    if (bz && bz->type != ElemType::kInt32) return node_error(n, "the bias's zero point must be int32");
    for (std::uint64_t c = 0; bz && c < bz->count(); ++c)
      if (bz->integer(c) != 0) return node_error(n, "the bias's zero point must be 0");
  }
  const bool relu = int_attribute(n, "relu").value_or(0) != 0;
  Tensor b_kn;  // B as K×N when the node gives it N×K (Gemm's transB): the loader's work on a constant
  if (int_attribute(n, "transB").value_or(0) != 0) {
    if (t[3]->shape.size() != 2) return node_error(n, "transB needs a 2-D b");
    Node tn;
    tn.op_type = "Transpose";
    kernels::Result<Tensor> tr = run_host_op(tn, {t[3]});
    if (!tr) return tr.errors();
    b_kn = std::move(tr.value());
    t[3] = &b_kn;
  }
  const Tensor &a = *t[0], &b = *t[3];
  if (!is_8bit(a.type) || !is_8bit(b.type))
    return node_error(n,
                      fmt::format("a and b must be uint8 or int8, got {} and {}", describe(a), describe(b)));
  // A zero point has its codes' type: name the one that does not, with both types.
  for (auto [zero, codes, name] : {std::tuple{t[2], &a, "a"}, std::tuple{t[5], &b, "b"}})
    if (zero->type != codes->type)
      return node_error(
          n, fmt::format("{}_zero_point is {}, but {} is {} (a zero point has its tensor's type)", name,
                         describe(*zero), name, elem_name(codes->type)));
  if (!is_8bit(t[7]->type))
    return node_error(n, fmt::format("y_zero_point must be uint8 or int8, got {}", describe(*t[7])));
  for (std::size_t s : {1, 4, 6})
    if (!integer && t[s]->type != ElemType::kFloat32)
      return node_error(n, fmt::format("{} must be float32", names[s]));
  if (a.shape.size() < 2 || b.shape.size() < 2)
    return node_error(n,
                      fmt::format("1-D operands are not supported (a {}, b {})", describe(a), describe(b)));
  const std::uint64_t m = a.shape[a.shape.size() - 2], k = a.shape.back();
  const std::uint64_t n_cols = b.shape.back();
  if (b.shape[b.shape.size() - 2] != k)
    return node_error(n, fmt::format("a {} and b {} do not multiply (K {} against {})", describe(a),
                                     describe(b), k, b.shape[b.shape.size() - 2]));
  // Batches: B 2-D is shared; otherwise B's batch dimensions must be A's.
  const std::vector<std::uint64_t> batch_dims(a.shape.begin(), a.shape.end() - 2);
  if (b.shape.size() > 2 && std::vector<std::uint64_t>(b.shape.begin(), b.shape.end() - 2) != batch_dims)
    return node_error(
        n, fmt::format("batch dimensions of b {} must be a's {} (or b 2-D)", describe(b), describe(a)));
  std::uint64_t batches = 1;
  for (std::uint64_t d : batch_dims) batches *= d;
  if (m == 0 || k == 0 || n_cols == 0) return node_error(n, "empty matrices are not supported");

  const Tensor one = [] {
    Tensor s = make_tensor(ElemType::kFloat32, {});
    set_real(s, 0, 1.0f);
    return s;
  }();
  if (integer) t[1] = t[4] = t[6] = &one;
  auto a_scale = scalar(n, *t[1], "a_scale");
  auto a_zero = scalar(n, *t[2], "a_zero_point");
  auto y_scale = scalar(n, *t[6], "y_scale");
  auto y_zero = scalar(n, *t[7], "y_zero_point");
  for (auto* r : {&a_scale, &a_zero, &y_scale, &y_zero})
    if (!r->ok()) return r->errors();
  // b's scale and zero point per tensor or per column; the zero point one value (the MACs take one).
  const Tensor &b_scale = *t[4], &b_zero = *t[5];
  if (b_scale.count() != 1 && b_scale.count() != n_cols)
    return node_error(n, fmt::format("b_scale {} must have 1 or {} elements", describe(b_scale), n_cols));
  if (b_zero.count() != 1 && b_zero.count() != n_cols)
    return node_error(n, fmt::format("b_zero_point {} must have 1 or {} elements", describe(b_zero), n_cols));
  // Scales must be finite and positive: the requant's clamp and a fused Clip assume an increasing Q.
  for (const Tensor* s : {t[1], t[4], t[6]})
    for (std::uint64_t c = 0; c < s->count(); ++c)
      if (!(s->real(c) > 0) || !std::isfinite(s->real(c)))
        return node_error(n, fmt::format("a scale is {} (expected a finite positive number)", s->real(c)));
  // Caps: the output tensor (1 GiB, as an input tensor's) and the programs one node may run.
  constexpr std::uint64_t kMaxBatches = 4096;
  const auto out_elements = core::checked_mul(core::checked_mul(batches, m).value_or(UINT64_MAX), n_cols);
  if (!out_elements || *out_elements > kMaxTensorBytes / 4)
    return node_error(
        n, fmt::format("its output of {} matrices of {}×{} is more than 1 GiB", batches, m, n_cols));
  if (batches > kMaxBatches)
    return node_error(n,
                      fmt::format("{} matrices are more than {} (one program each)", batches, kMaxBatches));
  for (std::uint64_t c = 1; c < b_zero.count(); ++c)
    if (b_zero.integer(c) != b_zero.integer(0))
      return node_error(n, "b_zero_point differs per column (not supported: the MACs take one zero point)");

  kernels::QgemmProblem p;
  p.m = m, p.n = n_cols, p.k = k;
  p.a_dtype = *machine_dtype(a.type);
  p.b_dtype = *machine_dtype(b.type);
  p.a_zero = static_cast<std::int32_t>(a_zero.value());
  p.b_zero = static_cast<std::int32_t>(b_zero.integer(0));
  p.int32_out = integer;
  p.out.rounding = numeric::Rounding::kFloat;
  p.out.out_dtype = *machine_dtype(t[7]->type);
  p.out.out_zero_point = static_cast<std::int32_t>(y_zero.value());
  p.out.act_min = p.out.out_dtype == core::DType::kUInt8 ? 0 : -128;
  p.out.act_max = p.out.out_dtype == core::DType::kUInt8 ? 255 : 127;
  if (relu) p.out.act_min = std::max(p.out.act_min, p.out.out_zero_point);
  // A fused Clip(lo, hi): Q(clip(v, lo, hi)) = clamp(Q(v), Q(lo), Q(hi)), Q being monotone.
  for (int side = 0; side < 2; ++side) {
    const std::size_t at = 11 + static_cast<std::size_t>(side);
    std::optional<double> bound;
    if (fused && at < in.size() && in[at]) {
      if (in[at]->type != ElemType::kFloat32 || in[at]->count() != 1)
        return node_error(n, fmt::format("Clip's {} must be one float32", side ? "max" : "min"));
      bound = in[at]->real(0);
    } else if (fused) {
      if (auto f = float_attribute(n, side ? "clip_max" : "clip_min")) bound = *f;
    }
    if (!bound) continue;
    if (!std::isfinite(*bound)) return node_error(n, fmt::format("Clip's bound {} is not finite", *bound));
    const float quotient = static_cast<float>(*bound) / static_cast<float>(y_scale.value());
    const double q = std::clamp(std::nearbyint(static_cast<double>(quotient)) + p.out.out_zero_point,
                                static_cast<double>(p.out.act_min), static_cast<double>(p.out.act_max));
    if (side == 0)
      p.out.act_min = std::max(p.out.act_min, static_cast<std::int32_t>(q));
    else
      p.out.act_max = std::min(p.out.act_max, static_cast<std::int32_t>(q));
  }
  if (p.out.act_min > p.out.act_max) return node_error(n, "Clip's min is above its max");
  std::vector<std::uint8_t> bias_bytes;
  if (bias) {
    if (bias->type != ElemType::kInt32 || bias->count() != n_cols)
      return node_error(n,
                        fmt::format("bias must be int32 with {} elements, got {}", n_cols, describe(*bias)));
    p.has_bias = true;
    bias_bytes = bias->bytes;
  }
  p.out.multipliers.clear();
  for (std::uint64_t c = 0; c < b_scale.count(); ++c)
    p.out.multipliers.push_back(numeric::float_multiplier(
        numeric::onnx_requant_scale(static_cast<float>(a_scale.value()), static_cast<float>(b_scale.real(c)),
                                    static_cast<float>(y_scale.value()))));
  try {
    kernels::check_problem(p);
  } catch (const kernels::QgemmError& e) {
    return node_error(n, e.what());
  }

  PreparedGemm g;
  g.problem = p;
  g.batch_dims = batch_dims;
  g.batches = batches;
  g.b_batched = b.shape.size() > 2;
  g.a = a.bytes;
  g.b = b.bytes;
  g.bias = std::move(bias_bytes);
  g.out_type = integer ? ElemType::kInt32 : t[7]->type;
  return g;
}

kernels::Result<TensorQuant> tensor_quant(const Node& n, const Inputs& in, std::size_t at, const char* what,
                                          std::optional<ElemType> type) {
  auto scale = required(n, in, at, fmt::format("{}_scale", what).c_str());
  if (!scale) return scale.errors();
  const Tensor& s = *scale.value();
  if (s.type != ElemType::kFloat32 || s.count() != 1 || !(s.real(0) > 0) || !std::isfinite(s.real(0)))
    return node_error(
        n, fmt::format("{}_scale must be one positive float32 (per tensor), got {}", what, describe(s)));
  TensorQuant q;
  q.scale = s.real(0);
  const Tensor* z = at + 1 < in.size() ? in[at + 1] : nullptr;
  q.type = z ? z->type : type.value_or(ElemType::kUInt8);
  if (type && q.type != *type)
    return node_error(n,
                      fmt::format("{}_zero_point is {}, its codes {}", what, describe(*z), elem_name(*type)));
  if (q.type != ElemType::kUInt8 && q.type != ElemType::kInt8)
    return node_error(n, z ? fmt::format("{}_zero_point must be uint8 or int8, got {}", what, describe(*z))
                           : fmt::format("{} must be uint8 or int8 codes", what));
  if (z && z->count() != 1)
    return node_error(
        n, fmt::format("{}_zero_point must have one element (per tensor), got {}", what, describe(*z)));
  q.zero = z ? static_cast<std::int32_t>(z->integer(0)) : 0;
  return q;
}

bool chains(const PreparedGemm& g) { return g.batches == 1 && g.batch_dims.empty() && !g.problem.int32_out; }

kernels::Result<NodeProblem> gemm_node_problem(const Node& n, PreparedGemm g) {
  if (g.batches != 1 || !g.batch_dims.empty())
    return node_error(n, "a batched GEMM runs one program per matrix");
  const kernels::QgemmProblem& p = g.problem;
  kernels::QgemmOperands ops;
  ops.a = std::move(g.a);
  ops.b = std::move(g.b);
  if (p.per_channel()) ops.multipliers = p.out.multipliers;
  ops.bias = std::move(g.bias);
  NodeProblem out;
  out.problem = std::make_unique<kernels::QgemmInstance>(p, std::move(ops), "", "", "");
  out.kernel = "qgemm";
  out.reads = {{0, "A"}};
  out.output = "C";
  out.out = Tensor{g.out_type, {p.m, p.n}, {}};
  return out;
}

kernels::Result<NodeProblem> chain_node_problem(const std::vector<const Node*>& nodes,
                                                std::vector<PreparedGemm> prepared) {
  std::vector<kernels::GemmLayer> layers;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!chains(prepared[i])) return node_error(*nodes[i], "cannot join a chain (batched or int32 output)");
    layers.push_back({prepared[i].problem, std::move(prepared[i].b), std::move(prepared[i].bias)});
  }
  const kernels::QgemmProblem last = layers.back().problem;
  std::vector<std::uint8_t> input = std::move(prepared.front().a);
  kernels::Result<std::unique_ptr<kernels::Problem>> problem =
      kernels::gemm_network_problem(std::move(layers), std::move(input), false);
  if (!problem) return node_error(*nodes[0], problem.errors().front().message());
  NodeProblem out;
  out.problem = std::move(problem.value());
  out.kernel = "onnx-chain";
  out.reads = {{0, "X0"}};
  out.output = fmt::format("X{}", nodes.size());
  out.out = Tensor{
      last.out_dtype() == core::DType::kUInt8 ? ElemType::kUInt8 : ElemType::kInt8, {last.m, last.n}, {}};
  return out;
}

void permute_k_for_nhwc(PreparedGemm& g, const std::vector<std::uint64_t>& nchw) {
  const std::uint64_t c = nchw[1], hw = nchw[2] * nchw[3], n_cols = g.problem.n;
  std::vector<std::uint8_t> b(g.b.size());
  for (std::uint64_t ch = 0; ch < c; ++ch)
    for (std::uint64_t p = 0; p < hw; ++p)
      std::copy_n(g.b.begin() + static_cast<std::ptrdiff_t>((ch * hw + p) * n_cols), n_cols,
                  b.begin() + static_cast<std::ptrdiff_t>((p * c + ch) * n_cols));
  g.b = std::move(b);
}

}  // namespace treesim::graph
