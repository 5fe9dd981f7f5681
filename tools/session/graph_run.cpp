#include "tools/session/graph_run.h"

#include <deque>
#include <map>

#include <fmt/format.h>

#include "kernels/conv2d/conv2d.h"
#include "kernels/graph/add_ops.h"
#include "kernels/graph/conv_ops.h"
#include "kernels/graph/graph_program.h"
#include "kernels/graph/host_ops.h"
#include "kernels/graph/machine_ops.h"
#include "kernels/graph/made_value.h"
#include "kernels/qgemm/qgemm_kernel.h"
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

namespace {

// The node's inputs that are activations (read by the kernel from DRAM); any other input the
// program makes ends the program before the node.
std::vector<std::size_t> activation_inputs(const Node& n) {
  if (is_add(n)) return {0, 3};
  return {0};
}

class Runner {
 public:
  Runner(const Model& model, const machine::MachineConfig& machine, models::Simulation& sim,
         const GraphRunOptions& options)
      : model_(model), machine_(machine), sim_(sim), options_(options) {
    for (const Node& n : model.nodes)
      for (const std::string& name : n.inputs)
        if (!name.empty()) ++readers_[name];
    for (const ValueInfo& o : model.outputs) ++readers_[o.name];
  }

  core::Errors set_inputs(std::map<std::string, Tensor> inputs) {
    values_ = model_.initializers;
    std::map<std::string, std::pair<std::uint64_t, std::string>> dim_sizes;  // dim_param → size, by input
    for (const ValueInfo& in : model_.inputs) {
      auto it = inputs.find(in.name);
      if (it == inputs.end()) return {core::Error{"input '" + core::echo(in.name) + "'", "not given"}};
      if (std::string why = declaration_mismatch(in, it->second); !why.empty())
        return {core::Error{"input '" + core::echo(in.name) + "'", why}};
      // A symbolic dimension ("N") takes one size across the inputs that name it.
      for (std::size_t d = 0; d < in.dim_params.size() && d < it->second.shape.size(); ++d) {
        if (in.dim_params[d].empty()) continue;
        auto size = dim_sizes.emplace(in.dim_params[d], std::pair{it->second.shape[d], in.name}).first;
        if (size->second.first != it->second.shape[d])
          return {core::Error{
              "input '" + core::echo(in.name) + "'",
              fmt::format("dimension {} ('{}') is {}, but input '{}' gave '{}' the size {}", d,
                          core::echo(in.dim_params[d]), it->second.shape[d], core::echo(size->second.second),
                          core::echo(in.dim_params[d]), size->second.first)}};
      }
      values_[in.name] = std::move(it->second);
      inputs.erase(it);
    }
    if (!inputs.empty())
      return {
          core::Error{"input '" + core::echo(inputs.begin()->first) + "'", "the graph has no such input"}};
    return {};
  }

  kernels::Result<GraphRun> run() {
    for (std::size_t i = 0; i < model_.nodes.size(); ++i) {
      kernels::Result<std::size_t> done = node(i);
      if (!done) return done.errors();
      i += done.value();
    }
    if (core::Errors e = flush(); !e.empty()) return e;
    for (const ValueInfo& o : model_.outputs) {
      auto it = values_.find(o.name);
      if (it == values_.end()) return core::Error{"output '" + core::echo(o.name) + "'", "no node makes it"};
      run_.outputs[o.name] = it->second;
    }
    return std::move(run_);
  }

 private:
  struct Unit {
    std::vector<std::size_t> nodes;  // model node indices (a chain's in order)
    std::vector<std::size_t> records;
    std::string label;
    const char* kernel = "";
    kernels::ConvLm lm;  // a convolution's input and output in the LMs
  };

  // The node's inputs: values, stand-ins of the values the program makes (kept in `standins`), or
  // null for an omitted one.
  kernels::Result<Inputs> inputs_of(const Node& n, std::deque<Tensor>& standins,
                                    const Tensor* first = nullptr) {
    Inputs in;
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      const std::string& name = n.inputs[k];
      if (k == 0 && first) {
        in.push_back(first);
      } else if (name.empty()) {
        in.push_back(nullptr);
      } else if (auto m = made_.find(name); m != made_.end()) {
        standins.push_back(make_tensor(m->second.like.type, m->second.like.shape));
        in.push_back(&standins.back());
      } else if (auto it = values_.find(name); it != values_.end()) {
        in.push_back(&it->second);
      } else {
        return node_error(n, fmt::format("reads '{}', which no input, initializer or earlier node makes",
                                         core::echo(name)));
      }
    }
    return in;
  }

  const Made* made(const Node& n, std::size_t k) const {
    if (k >= n.inputs.size() || n.inputs[k].empty()) return nullptr;
    auto it = made_.find(n.inputs[k]);
    return it == made_.end() ? nullptr : &it->second;
  }

  // Whether the node can read the values the program makes where they lie.
  bool links(const Node& n) const {
    const std::vector<std::size_t> act = activation_inputs(n);
    for (std::size_t k = 0; k < n.inputs.size(); ++k)
      if (made(n, k) && std::find(act.begin(), act.end(), k) == act.end()) return false;
    const Made* a = made(n, 0);
    if (is_add(n)) {
      const Made* b = made(n, 3);
      if (!a && !b) return true;
      return a && b && a->form == b->form && a->nchw == b->nchw;
    }
    if (!a) return true;
    if (is_conv(n) || is_pool(n))
      return a->form == Form::kNhwc || (a->form == Form::kPlain && a->like.shape.size() == 4 &&
                                        (a->like.shape[1] == 1 || a->like.shape[2] * a->like.shape[3] == 1));
    return a->form == Form::kFlatNhwc || (a->form == Form::kPlain && a->like.shape.size() == 2);
  }

  // A GEMM node prepared, its B reordered when its A is a flattened NHWC value.
  kernels::Result<PreparedGemm> gemm_of(const Node& n, const Inputs& in) {
    kernels::Result<PreparedGemm> g = prepare_gemm(n, in);
    if (!g) return g;
    if (const Made* a = made(n, 0); a && a->form == Form::kFlatNhwc) permute_k_for_nhwc(g.value(), a->nchw);
    return g;
  }

  // The GEMM node `next` prepared to read the output of `prev` (a stand-in of its shape and type).
  kernels::Result<PreparedGemm> next_layer(const PreparedGemm& prev, const Node& next,
                                           std::deque<Tensor>& standins) {
    const Tensor link = make_tensor(prev.out_type, {prev.problem.m, prev.problem.n});
    kernels::Result<Inputs> in = inputs_of(next, standins, &link);
    if (!in) return in.errors();
    return prepare_gemm(next, in.value());
  }

  // The problem of GEMM nodes `nodes` (one, or a chain) from their prepared layers.
  kernels::Result<NodeProblem> gemm_problem(const std::vector<std::size_t>& nodes,
                                            std::vector<PreparedGemm> layers) {
    if (nodes.size() == 1) return gemm_node_problem(model_.nodes[nodes[0]], std::move(layers.front()));
    std::vector<const Node*> chain;
    for (std::size_t c : nodes) chain.push_back(&model_.nodes[c]);
    return chain_node_problem(chain, std::move(layers));
  }

  // The unit's problem from the current values (stand-ins for those the program makes).
  kernels::Result<NodeProblem> problem_of(const Unit& u) {
    std::deque<Tensor> standins;
    const Node& n = model_.nodes[u.nodes[0]];
    kernels::Result<Inputs> in = inputs_of(n, standins);
    if (!in) return in.errors();
    if (is_conv(n)) return conv_node_problem(n, in.value());
    if (is_pool(n)) return pool_node_problem(n, in.value());
    if (is_add(n)) return add_node_problem(n, in.value());
    kernels::Result<PreparedGemm> first = gemm_of(n, in.value());
    if (!first) return first.errors();
    std::vector<PreparedGemm> layers;
    layers.push_back(std::move(first.value()));
    for (std::size_t c = 1; c < u.nodes.size(); ++c) {
      kernels::Result<PreparedGemm> g = next_layer(layers.back(), model_.nodes[u.nodes[c]], standins);
      if (!g) return g.errors();
      layers.push_back(std::move(g.value()));
    }
    return gemm_problem(u.nodes, std::move(layers));
  }

  // The GEMM nodes from node i that run as one chain, prepared: each after the first reads only the
  // one before's output, 2-D int8 codes of the same type and zero point. `nodes` receives their
  // indices.
  std::vector<PreparedGemm> chain_from(std::size_t i, PreparedGemm first, std::vector<std::size_t>& nodes) {
    nodes = {i};
    std::vector<PreparedGemm> layers;
    layers.push_back(std::move(first));
    if (!options_.chain || !chain_gemm(model_.nodes[i]) || !chains(layers.back())) return layers;
    std::deque<Tensor> standins;
    while (i + nodes.size() < model_.nodes.size()) {
      const Node& last = model_.nodes[nodes.back()];
      const Node& next = model_.nodes[i + nodes.size()];
      const std::string& link = last.outputs[0];
      if (!chain_gemm(next) || next.inputs.empty() || next.inputs[0] != link || readers_[link] != 1) break;
      kernels::Result<PreparedGemm> g = next_layer(layers.back(), next, standins);
      if (!g || !chains(g.value())) break;
      const kernels::QgemmProblem &up = layers.back().problem, &down = g->problem;
      if (down.a_dtype != up.out_dtype() || down.a_zero != up.out.out_zero_point || down.k != up.n) break;
      nodes.push_back(i + nodes.size());
      layers.push_back(std::move(g.value()));
    }
    return layers;
  }

  NodeRun record_of(const Node& n) {
    NodeRun r;
    r.label = node_label(n);
    r.placement = place_node(n, model_.opset);
    return r;
  }

  // Node i; returns how many nodes after it it took too (a chain's).
  kernels::Result<std::size_t> node(std::size_t i) {
    const Node& n = model_.nodes[i];
    if (n.outputs.size() != 1 || n.outputs[0].empty())
      return node_error(n, fmt::format("has {} outputs (treesim's operators have one)", n.outputs.size()));
    const Placement p = place_node(n, model_.opset);
    if (p.where != Placement::Where::kMachine) return host_node(n);
    if (!links(n))
      if (core::Errors e = flush(); !e.empty()) return e;
    Unit u;
    u.label = node_label(n);
    u.nodes = {i};
    kernels::Result<NodeProblem> np = core::Errors{};
    if (is_gemm(n)) {
      std::deque<Tensor> standins;
      kernels::Result<Inputs> in = inputs_of(n, standins);
      if (!in) return in.errors();
      kernels::Result<PreparedGemm> g = gemm_of(n, in.value());
      if (!g) return g.errors();
      if (g->batches != 1 || !g->batch_dims.empty()) return batched_gemm(n);
      std::vector<PreparedGemm> layers = chain_from(i, std::move(g.value()), u.nodes);
      np = gemm_problem(u.nodes, std::move(layers));
    } else {
      np = problem_of(u);
    }
    if (!np) return np.errors();
    ProgramUnit pu;
    pu.name = u.label;
    pu.problem = std::move(np->problem);
    kernels::Result<kernels::Plan> plan = kernels::plan_problem(*pu.problem, machine_);
    if (!plan) return node_error(n, plan.errors().front().message());
    pu.plan = std::move(plan.value());
    for (auto [k, tensor] : np->reads)
      if (const Made* m = made(n, k)) pu.linked[tensor] = m->tensor;
    if (is_conv(n) || u.nodes.size() == 1) keep_in_lm(n, u, pu);
    const Node& last = model_.nodes[u.nodes.back()];
    pu.output = np->output;
    pu.output_name = fmt::format("v{}.{}", made_count_++, last.outputs[0]);
    Made out;
    out.tensor = pu.output_name;
    out.like = np->out;
    if (np->nhwc) out.form = Form::kNhwc, out.nchw = np->out.shape;
    if (is_add(n))
      if (const Made* a = made(n, 0)) out.form = a->form, out.nchw = a->nchw;
    for (std::size_t c : u.nodes) {
      u.records.push_back(run_.nodes.size());
      run_.nodes.push_back(record_of(model_.nodes[c]));
    }
    const std::size_t taken = u.nodes.size() - 1;
    u.kernel = np->kernel;
    units_.push_back(std::move(u));
    program_units_.push_back(std::move(pu));
    made_[last.outputs[0]] = normal(std::move(out));
    if (!options_.chain)
      if (core::Errors e = flush(); !e.empty()) return e;
    return taken;
  }

  // A convolution (or a dense layer, through a flatten) whose input is the output of the
  // convolution just before it, read by nothing else: that output stays in the LMs and this node
  // reads it there (windowed converts), when both plans fit beside it and their estimates beat the
  // two through DRAM.
  void keep_in_lm(const Node& n, Unit& u, ProgramUnit& pu) {
    if (units_.empty() || std::string(units_.back().kernel) != "conv2d" || n.inputs.empty()) return;
    const bool conv = is_conv(n);
    if (!conv && !dynamic_cast<kernels::QgemmInstance*>(pu.problem.get())) return;
    const Made* in = made(n, 0);
    ProgramUnit& prev = program_units_.back();
    Unit& before = units_.back();
    const std::string& value = model_.nodes[before.nodes.back()].outputs[0];  // the convolution's
    if (!in || in->form != (conv ? Form::kNhwc : Form::kFlatNhwc) || in->tensor != prev.output_name ||
        readers_[n.inputs[0]] != 1 || readers_[value] != 1)
      return;
    std::optional<kernels::ConvLm> read = link_in_lm(prev, before.lm, pu, machine_);
    if (!read) return;
    before.lm.keep_output = true, u.lm = *read;
    for (auto& [name, m] : made_)  // the convolution's value and its reshapes
      if (m.tensor == prev.output_name) m.in_lm = true;
  }

  // A host node: a reshape of a value the program makes stays in the program where its bytes can be
  // read as they lie; anything else takes its values from the host.
  kernels::Result<std::size_t> host_node(const Node& n) {
    NodeRun record = record_of(n);
    if (reshapes(n) && made(n, 0) && !n.inputs.empty()) {
      bool others = false;
      for (std::size_t k = 1; k < n.inputs.size(); ++k) others = others || made(n, k);
      std::deque<Tensor> standins;
      kernels::Result<Inputs> in = inputs_of(n, standins);
      if (!others && in) {
        kernels::Result<Tensor> shaped = run_host_op(n, in.value());
        if (!shaped) return shaped.errors();
        if (std::optional<Made> out = reshaped(*made(n, 0), shaped.value())) {
          made_[n.outputs[0]] = std::move(*out);
          run_.nodes.push_back(std::move(record));
          return std::size_t{0};
        }
      }
    }
    kernels::Result<Inputs> in = host_inputs(n);
    if (!in) return in.errors();
    kernels::Result<Tensor> out = run_host_op(n, in.value());
    if (!out) return out.errors();
    values_[n.outputs[0]] = std::move(out.value());
    run_.nodes.push_back(std::move(record));
    return std::size_t{0};
  }

  // One qgemm program per matrix, on its own.
  kernels::Result<std::size_t> batched_gemm(const Node& n) {
    kernels::Result<Inputs> in = host_inputs(n);
    if (!in) return in.errors();
    kernels::Result<PreparedGemm> real = prepare_gemm(n, in.value());
    if (!real) return real.errors();
    NodeRun record = record_of(n);
    kernels::Result<Tensor> out = run_gemm_node(n, real.value(), machine_, sim_, options_, record);
    if (!out) return out.errors();
    run_.cycles += record.cycles;
    run_.programs += record.programs;
    run_.nodes.push_back(std::move(record));
    values_[n.outputs[0]] = std::move(out.value());
    return std::size_t{0};
  }

  // The inputs of a node that takes them from the host: the open program runs first when it makes
  // one (then none is a stand-in).
  kernels::Result<Inputs> host_inputs(const Node& n) {
    for (std::size_t k = 0; k < n.inputs.size(); ++k)
      if (made(n, k)) {
        if (core::Errors e = flush(); !e.empty()) return e;
        break;
      }
    std::deque<Tensor> none;
    return inputs_of(n, none);
  }

  // Runs the gathered units as one program; the values it makes then come from its DRAM.
  core::Errors flush() {
    if (program_units_.empty()) return {};
    const std::string first = units_.front().label;
    GraphProgram program(std::move(program_units_));
    program_units_.clear();
    kernels::Result<kernels::Plan> plan = program.plan(machine_);
    if (!plan) return plan.errors();
    const Node& first_node = model_.nodes[units_.front().nodes.front()];
    session::RunOptions ro =
        program_options(units_.size() == 1 ? units_.front().kernel : "onnx-graph", first_node, options_);
    ro.verify = false;  // node by node, below
    kernels::Result<session::Outcome> outcome = session::run_problem(program, plan.value(), sim_, ro);
    if (!outcome) {
      if (units_.size() == 1) return {node_error(first_node, outcome.errors().front().message())};
      return {core::Error{"the program from " + first, outcome.errors().front().message()}};
    }
    const report::RunStats& stats = outcome->stats;
    run_.cycles += stats.cycles;
    ++run_.programs;
    std::size_t machine_nodes = 0;
    for (const Unit& u : units_) machine_nodes += u.nodes.size();
    for (std::size_t ui = 0; ui < units_.size(); ++ui) {
      const Unit& u = units_[ui];
      const ProgramUnit& pu = program.units()[ui];
      for (std::size_t c = 0; c < u.nodes.size(); ++c) {
        NodeRun& r = run_.nodes[u.records[c]];
        r.programs = 1;
        if (machine_nodes > 1) r.program_first = first, r.program_nodes = machine_nodes;
        if (u.nodes.size() == 1)
          add_phase(r, stats, u.label);
        else
          for (const char* suffix : {"", ".convert"})
            add_phase(r, stats, fmt::format("{}/layer{}{}", u.label, c, suffix));
      }
      NodeRun& head = run_.nodes[u.records[0]];
      head.plan = pu.plan.description;
      if (u.nodes.size() > 1) {
        head.chain_length = u.nodes.size();
        if (auto it = stats.extra.find(u.label + "/activations_in_lm"); it != stats.extra.end())
          head.activations_in_lm = it->second;
      }
    }
    // The values the program made, as ONNX shapes them.
    for (auto& [name, m] : made_) {
      // A value kept in the LMs never reaches DRAM: its bytes are what its reader gathered there.
      const models::DramImage& from = m.in_lm ? outcome->run.lm_reads : outcome->dram;
      auto it = from.find(m.tensor);
      if (m.in_lm && it == from.end()) continue;  // timing only
      if (it == from.end())
        return {core::Error{"", fmt::format("the program left no '{}' in DRAM", m.tensor)}};
      values_[name] = value_of(m, it->second);
    }
    made_.clear();  // the nodes below read the values it made, not stand-ins
    if (options_.verify) {
      for (std::size_t ui = 0; ui < units_.size(); ++ui) {
        const Unit& u = units_[ui];
        const ProgramUnit& pu = program.units()[ui];
        kernels::Result<NodeProblem> np = problem_of(u);  // on the values the program gave it
        if (!np) return np.errors();
        kernels::Result<kernels::DramImage> expected = np->problem->reference();
        if (!expected) return {node_error(model_.nodes[u.nodes[0]], expected.errors().front().message())};
        // An output kept in the LMs is checked as its reader gathered it there.
        const models::DramImage& from = u.lm.keep_output ? outcome->run.lm_reads : outcome->dram;
        kernels::DramImage got{{np->output, from.at(pu.output_name)}};
        run_.nodes[u.records.back()].verify = np->problem->verify(got, expected.value());
      }
    }
    for (std::size_t ui = 0; ui < units_.size(); ++ui)
      if (units_[ui].lm.keep_output) run_.nodes[units_[ui].records.back()].output_in_lm = true;
    units_.clear();
    return {};
  }

  const Model& model_;
  const machine::MachineConfig& machine_;
  models::Simulation& sim_;
  const GraphRunOptions& options_;
  std::map<std::string, std::size_t> readers_;
  std::map<std::string, Tensor> values_;  // values the host holds
  std::map<std::string, Made> made_;      // values the gathered program makes
  std::vector<Unit> units_;
  std::vector<ProgramUnit> program_units_;
  std::size_t made_count_ = 0;
  GraphRun run_;
};

}  // namespace

kernels::Result<GraphRun> run_graph(const Model& model, std::map<std::string, Tensor> inputs,
                                    const machine::MachineConfig& machine, models::Simulation& sim,
                                    const GraphRunOptions& options) {
  if (core::Errors e = unsupported_nodes(model); !e.empty()) return e;
  Runner runner(model, machine, sim, options);
  if (core::Errors e = runner.set_inputs(std::move(inputs)); !e.empty()) return e;
  return runner.run();
}

session::RunOptions program_options(const char* kernel, const Node& node, const GraphRunOptions& options) {
  session::RunOptions run;
  run.kernel = kernel;
  run.simulation.kernel = kernel;
  run.simulation.read_back_stored_only = true;
  run.verify = options.verify;
  if (options.trace_path) run.simulation.json_path = options.trace_path(node_label(node));
  return run;
}

kernels::Result<Tensor> run_gemm_node(const Node& n, const PreparedGemm& g,
                                      const machine::MachineConfig& machine, models::Simulation& sim,
                                      const GraphRunOptions& options, NodeRun& record) {
  const kernels::QgemmProblem& p = g.problem;
  const std::uint64_t m = p.m, k = p.k, n_cols = p.n;
  std::vector<std::uint64_t> out_shape = g.batch_dims;
  out_shape.push_back(m);
  out_shape.push_back(n_cols);
  Tensor y = make_tensor(g.out_type, out_shape);
  for (std::uint64_t i = 0; i < g.batches; ++i) {
    kernels::QgemmOperands ops;
    ops.a.assign(g.a.begin() + static_cast<std::ptrdiff_t>(i * m * k),
                 g.a.begin() + static_cast<std::ptrdiff_t>((i + 1) * m * k));
    const std::uint64_t bi = g.b_batched ? i : 0;
    ops.b.assign(g.b.begin() + static_cast<std::ptrdiff_t>(bi * k * n_cols),
                 g.b.begin() + static_cast<std::ptrdiff_t>((bi + 1) * k * n_cols));
    if (p.per_channel()) ops.multipliers = p.out.multipliers;
    ops.bias = g.bias;
    kernels::QgemmInstance problem(p, std::move(ops), "", "", "");
    kernels::Result<kernels::Plan> plan = kernels::plan_problem(problem, machine);
    if (!plan) return node_error(n, plan.errors().front().message());
    kernels::Result<session::Outcome> outcome =
        session::run_problem(problem, plan.value(), sim, program_options("qgemm", n, options));
    if (!outcome) return node_error(n, outcome.errors().front().message());
    const std::vector<std::uint8_t>& c = outcome->dram.at("C");
    std::copy(c.begin(), c.end(),
              y.bytes.begin() + static_cast<std::ptrdiff_t>(i * m * n_cols * elem_bytes(y.type)));
    add_program(record, plan->description, outcome->stats);
    if (outcome->stats.verify) add_verify(record, *outcome->stats.verify, fmt::format("matrix {}: ", i));
  }
  return y;
}

}  // namespace treesim::graph
