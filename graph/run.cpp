#include "graph/run.h"

#include <map>

#include <fmt/format.h>

#include "graph/add_ops.h"
#include "graph/conv_ops.h"
#include "graph/host_ops.h"
#include "graph/machine_ops.h"
#include "sim/core/echo.h"

namespace treesim::graph {

core::Errors unsupported_nodes(const Model& model) {
  core::Errors errors;
  for (const Node& n : model.nodes) {
    const Placement p = place_node(n, model.opset);
    if (p.where == Placement::Where::kUnsupported) errors.push_back(node_error(n, p.what));
  }
  return errors;
}

kernels::Result<GraphRun> run_graph(const Model& model, std::map<std::string, Tensor> inputs,
                                    const machine::MachineConfig& machine, models::Simulation& sim,
                                    const GraphRunOptions& options) {
  if (core::Errors e = unsupported_nodes(model); !e.empty()) return e;
  std::map<std::string, Tensor> values = model.initializers;
  for (const ValueInfo& in : model.inputs) {
    auto it = inputs.find(in.name);
    if (it == inputs.end()) return core::Error{"input '" + core::echo(in.name) + "'", "not given"};
    if (in.type && it->second.type != *in.type)
      return core::Error{"input '" + core::echo(in.name) + "'",
                         fmt::format("expected {}, got {}", elem_name(*in.type), describe(it->second))};
    values[in.name] = std::move(it->second);
    inputs.erase(it);
  }
  if (!inputs.empty())
    return core::Error{"input '" + core::echo(inputs.begin()->first) + "'", "the graph has no such input"};
  // How many nodes read each value, and the graph's outputs: a chain's inner activations must have
  // no other reader.
  std::map<std::string, std::size_t> readers;
  for (const Node& n : model.nodes)
    for (const std::string& name : n.inputs)
      if (!name.empty()) ++readers[name];
  for (const ValueInfo& o : model.outputs) ++readers[o.name];
  auto inputs_of = [&](const Node& n, const Tensor* first) -> kernels::Result<Inputs> {
    Inputs in;
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      const std::string& name = n.inputs[k];
      if (k == 0 && first) {
        in.push_back(first);
        continue;
      }
      if (name.empty()) {
        in.push_back(nullptr);
        continue;
      }
      auto it = values.find(name);
      if (it == values.end())
        return node_error(n, fmt::format("reads '{}', which no input, initializer or earlier node makes",
                                         core::echo(name)));
      in.push_back(&it->second);
    }
    return in;
  };
  auto gemm = [](const Node& n) {
    return n.op_type == "QLinearMatMul" || (n.domain == "treesim" && n.op_type == "QGemm");
  };
  GraphRun run;
  for (std::size_t i = 0; i < model.nodes.size(); ++i) {
    const Node& n = model.nodes[i];
    kernels::Result<Inputs> in = inputs_of(n, nullptr);
    if (!in) return in.errors();
    if (n.outputs.size() != 1 || n.outputs[0].empty())
      return node_error(n, fmt::format("has {} outputs (treesim's operators have one)", n.outputs.size()));
    NodeRun record;
    record.label = node_label(n);
    record.placement = place_node(n, model.opset);
    if (record.placement.where == Placement::Where::kMachine && (is_conv(n) || is_pool(n) || is_add(n))) {
      kernels::Result<Tensor> out = is_pool(n)  ? run_pool_node(n, in.value(), machine, sim, options, record)
                                    : is_add(n) ? run_add_node(n, in.value(), machine, sim, options, record)
                                                : run_conv_node(n, in.value(), machine, sim, options, record);
      if (!out) return out.errors();
      run.cycles += record.cycles;
      run.nodes.push_back(std::move(record));
      values[n.outputs[0]] = std::move(out.value());
      continue;
    }
    if (record.placement.where == Placement::Where::kMachine) {
      kernels::Result<PreparedGemm> first = prepare_gemm(n, in.value());
      if (!first) return first.errors();
      std::vector<const Node*> chain{&n};
      std::vector<PreparedGemm> layers;
      layers.push_back(std::move(first.value()));
      // The longest run of following GEMM nodes that each read only the one before's output.
      while (options.chain && gemm(n) && chains(layers.back()) && i + chain.size() < model.nodes.size()) {
        const PreparedGemm& prev = layers.back();
        const Node& next = model.nodes[i + chain.size()];
        const std::string& link = chain.back()->outputs[0];
        if (!gemm(next) || next.inputs.empty() || next.inputs[0] != link || readers[link] != 1) break;
        // The link's value is made inside the program: a stand-in of its shape and type.
        const Tensor link_value = make_tensor(prev.out_type, {prev.problem.m, prev.problem.n});
        kernels::Result<Inputs> next_in = inputs_of(next, &link_value);
        if (!next_in) break;
        kernels::Result<PreparedGemm> g = prepare_gemm(next, next_in.value());
        if (!g || !chains(g.value())) break;
        // The next layer reads the codes as they are: the same type and zero point (a model may
        // requantize between them; then the nodes run one by one).
        const kernels::QgemmProblem &up = prev.problem, &down = g->problem;
        if (down.a_dtype != up.out_dtype() || down.a_zero != up.out.out_zero_point || down.k != up.n) break;
        chain.push_back(&next);
        layers.push_back(std::move(g.value()));
      }
      if (chain.size() > 1) {
        std::vector<NodeRun> records(chain.size());
        for (std::size_t c = 0; c < chain.size(); ++c) {
          records[c].label = node_label(*chain[c]);
          records[c].placement = place_node(*chain[c], model.opset);
        }
        kernels::Result<Tensor> out =
            run_gemm_chain(chain, std::move(layers), machine, sim, options, records, run.cycles);
        if (!out) return out.errors();
        for (NodeRun& r : records) run.nodes.push_back(std::move(r));
        values[chain.back()->outputs[0]] = std::move(out.value());
        i += chain.size() - 1;
        continue;
      }
      kernels::Result<Tensor> out = run_gemm_node(n, layers.front(), machine, sim, options, record);
      if (!out) return out.errors();
      run.cycles += record.cycles;
      run.nodes.push_back(std::move(record));
      values[n.outputs[0]] = std::move(out.value());
      continue;
    }
    kernels::Result<Tensor> out = run_host_op(n, in.value());
    if (!out) return out.errors();
    run.cycles += record.cycles;
    run.nodes.push_back(std::move(record));
    values[n.outputs[0]] = std::move(out.value());
  }
  for (const ValueInfo& o : model.outputs) {
    auto it = values.find(o.name);
    if (it == values.end()) return core::Error{"output '" + core::echo(o.name) + "'", "no node makes it"};
    run.outputs[o.name] = it->second;
  }
  return run;
}

}  // namespace treesim::graph
