// Running an imported graph: nodes in the file's order, each on the machine (a kernel problem, e.g.
// QLinearMatMul as qgemm with ONNX Runtime's float requant) or on the host (kernels/graph/ops.h says which).
// The machine nodes between host nodes run as one program (kernels/graph/graph_program.h), run by the run
// session. Every machine node's output is checked against its host reference, on the inputs the
// program gave it, with `verify`.
#pragma once

#include <functional>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kernels/graph/model.h"
#include "kernels/graph/node_run.h"
#include "kernels/graph/ops.h"
#include "kernels/kernel.h"
#include "kernels/graph/machine_ops.h"
#include "models/simulation.h"
#include "tools/session/run_problem.h"
#include "sim/report/report.h"

namespace treesim::graph {

struct GraphRun {
  std::map<std::string, Tensor> outputs;  // the graph's outputs by name
  std::vector<NodeRun> nodes;
  std::uint64_t programs = 0;
  std::uint64_t cycles = 0;  // the machine's programs, one after the other
};

struct GraphRunOptions {
  bool verify = false;
  // The machine nodes run as one program, each reading what the one before left in DRAM (NHWC
  // between convolutions and pools), consecutive GEMM nodes as a chain with their activations in
  // the LMs; a host node that needs a value the program makes ends the program there. false: every
  // node its own program, its inputs and outputs through the host.
  bool chain = true;
  // Set: every machine program also writes a Chrome trace (--trace-json) to the path this returns for
  // it, called in program order with the label of the first node the program runs.
  std::function<std::string(const std::string& node)> trace_path;
};

// The run session's options for a machine node's program: its kernel, verify, read back only what
// it stores, and its trace file when options.trace_path is set.
session::RunOptions program_options(const char* kernel, const Node& node, const GraphRunOptions& options);

// One qgemm per matrix of the batch (numpy matmul broadcasting of a 2-D B). Adds its programs'
// figures to `record`.
kernels::Result<Tensor> run_gemm_node(const Node& node, const PreparedGemm& gemm,
                                      const machine::MachineConfig& machine, models::Simulation& sim,
                                      const GraphRunOptions& options, NodeRun& record);

// Every node that cannot run, with why (one error per node: "node QLinearConv 'c1': needs ...").
core::Errors unsupported_nodes(const Model& model);

// `inputs` by the graph's input names. Errors name the node and what it cannot take.
kernels::Result<GraphRun> run_graph(const Model& model, std::map<std::string, Tensor> inputs,
                                    const machine::MachineConfig& machine, models::Simulation& sim,
                                    const GraphRunOptions& options = {});

}  // namespace treesim::graph
