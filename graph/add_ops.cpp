#include "graph/add_ops.h"

#include <fmt/format.h>

#include "graph/machine_ops.h"
#include "graph/onnx_file.h"
#include "kernels/add/add.h"

namespace treesim::graph {

bool is_add(const Node& n) { return n.domain == "treesim" && n.op_type == "QAdd"; }

kernels::Result<Tensor> run_add_node(const Node& n, const Inputs& in, const machine::MachineConfig& machine,
                                     models::Simulation& sim, const GraphRunOptions& options,
                                     NodeRun& record) {
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
  kernels::Result<Tensor> out = run_node_problem(n, kernels::add_problem(s, ta.bytes, tb.bytes), "qadd",
                                                 machine, sim, options, record, "Y");
  if (!out) return out.errors();
  Tensor y = make_tensor(yq->type, ta.shape);
  y.bytes = std::move(out->bytes);
  return y;
}

}  // namespace treesim::graph
