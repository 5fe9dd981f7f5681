#include "kernels/graph/add_ops.h"

#include <fmt/format.h>

#include "kernels/graph/machine_ops.h"
#include "kernels/graph/onnx_file.h"
#include "kernels/add/add.h"

namespace treesim::graph {

bool is_add(const Node& n) { return n.domain == "treesim" && n.op_type == "QAdd"; }

kernels::Result<NodeProblem> add_node_problem(const Node& n, const Inputs& in) {
  auto a = required(n, in, 0, "a");
  auto b = required(n, in, 3, "b");
  if (!a) return a.errors();
  if (!b) return b.errors();
  const Tensor &ta = *a.value(), &tb = *b.value();
  if (ta.shape != tb.shape)
    return node_error(n, fmt::format("a {} and b {} differ in shape: broadcasting is not supported",
                                     describe(ta), describe(tb)));
  if (ta.count() == 0) return node_error(n, "a and b are empty");
  auto aq = tensor_quant(n, in, 1, "a", ta.type);
  auto bq = tensor_quant(n, in, 4, "b", tb.type);
  auto yq = tensor_quant(n, in, 6, "y", std::nullopt);
  if (!aq) return aq.errors();
  if (!bq) return bq.errors();
  if (!yq) return yq.errors();
  // ONNX Runtime's scale ratios: fl32(a_scale / y_scale) and fl32(b_scale / y_scale).
  numeric::AddStage s;
  s.a_dtype = *machine_dtype(ta.type), s.b_dtype = *machine_dtype(tb.type);
  s.a_zero = aq->zero, s.b_zero = bq->zero;
  s.a_scale = static_cast<float>(static_cast<float>(aq->scale) / static_cast<float>(yq->scale));
  s.b_scale = static_cast<float>(static_cast<float>(bq->scale) / static_cast<float>(yq->scale));
  s.out_dtype = *machine_dtype(yq->type), s.out_zero = yq->zero;
  s.act_min = static_cast<std::int32_t>(core::dtype_min(s.out_dtype));
  s.act_max = static_cast<std::int32_t>(core::dtype_max(s.out_dtype));
  if (int_attribute(n, "relu").value_or(0) != 0) s.act_min = std::max(s.act_min, s.out_zero);
  kernels::Result<std::unique_ptr<kernels::Problem>> problem = kernels::add_problem(s, ta.bytes, tb.bytes);
  if (!problem) return node_error(n, problem.errors().front().message());
  NodeProblem out;
  out.problem = std::move(problem.value());
  out.kernel = "qadd";
  out.reads = {{0, "A"}, {3, "B"}};
  out.output = "Y";
  out.out = Tensor{yq->type, ta.shape, {}};
  return out;
}

}  // namespace treesim::graph
