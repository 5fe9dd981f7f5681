// Running an imported graph: nodes in the file's order, each on the machine (a kernel problem, e.g.
// QLinearMatMul as qgemm with ONNX Runtime's float requant) or on the host (graph/ops.h says which).
// The machine nodes between host nodes run as one program (graph/graph_program.h), run by the run
// session. Every machine node's output is checked against its host reference, on the inputs the
// program gave it, with `verify`.
#pragma once

#include <functional>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph/model.h"
#include "graph/ops.h"
#include "kernels/kernel.h"
#include "models/simulation.h"
#include "sim/report/report.h"

namespace treesim::graph {

struct NodeRun {
  std::string label;  // node_label
  Placement placement;
  std::uint64_t programs = 0;  // machine programs it ran in (a batched MatMul runs one per matrix)
  // Its phase of the program (its own when it ran alone; summed over a batched MatMul's programs):
  // phases of one program overlap, so they add up to more than the program.
  std::uint64_t cycles = 0;
  std::uint64_t macs = 0, dram_read = 0, dram_written = 0;
  std::optional<report::VerifyResult> verify;  // machine nodes with verify
  std::string plan;  // machine nodes: its program's plan (a chain's on its first node)
  // In a program of more than one machine node: the program's first node's label and how many
  // machine nodes it runs.
  std::string program_first;
  std::size_t program_nodes = 0;
  // A GEMM chain's first node: the chain's length and the activations between its layers kept in
  // the LMs.
  std::size_t chain_length = 0;
  std::optional<std::uint64_t> activations_in_lm;
  // Its output stayed in the LMs for the next node (a convolution's, read by the next convolution's
  // windows there, or a dense layer's rows): never in DRAM, it is verified as that node read it.
  bool output_in_lm = false;
};

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

// Every node that cannot run, with why (one error per node: "node QLinearConv 'c1': needs ...").
core::Errors unsupported_nodes(const Model& model);

// `inputs` by the graph's input names. Errors name the node and what it cannot take.
kernels::Result<GraphRun> run_graph(const Model& model, std::map<std::string, Tensor> inputs,
                                    const machine::MachineConfig& machine, models::Simulation& sim,
                                    const GraphRunOptions& options = {});

}  // namespace treesim::graph
