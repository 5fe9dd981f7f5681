#include "graph/run.h"

#include <fmt/format.h>

#include "graph/host_ops.h"
#include "graph/machine_ops.h"

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
    if (it == inputs.end()) return core::Error{"input '" + in.name + "'", "not given"};
    if (in.type && it->second.type != *in.type)
      return core::Error{"input '" + in.name + "'",
                         fmt::format("expected {}, got {}", elem_name(*in.type), describe(it->second))};
    values[in.name] = std::move(it->second);
    inputs.erase(it);
  }
  if (!inputs.empty())
    return core::Error{"input '" + inputs.begin()->first + "'", "the graph has no such input"};
  GraphRun run;
  for (const Node& n : model.nodes) {
    Inputs in;
    for (const std::string& name : n.inputs) {
      if (name.empty()) {
        in.push_back(nullptr);
        continue;
      }
      auto it = values.find(name);
      if (it == values.end())
        return node_error(n,
                          fmt::format("reads '{}', which no input, initializer or earlier node makes", name));
      in.push_back(&it->second);
    }
    if (n.outputs.size() != 1 || n.outputs[0].empty())
      return node_error(n, fmt::format("has {} outputs (treesim's operators have one)", n.outputs.size()));
    NodeRun record;
    record.label = node_label(n);
    record.placement = place_node(n, model.opset);
    kernels::Result<Tensor> out = record.placement.where == Placement::Where::kMachine
                                      ? run_qlinear_matmul(n, in, machine, sim, options, record)
                                      : run_host_op(n, in);
    if (!out) return out.errors();
    run.cycles += record.cycles;
    run.nodes.push_back(std::move(record));
    values[n.outputs[0]] = std::move(out.value());
  }
  for (const ValueInfo& o : model.outputs) {
    auto it = values.find(o.name);
    if (it == values.end()) return core::Error{"output '" + o.name + "'", "no node makes it"};
    run.outputs[o.name] = it->second;
  }
  return run;
}

}  // namespace treesim::graph
