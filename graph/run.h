// Running an imported graph: nodes in the file's order, each on the machine (a kernel problem run by
// the run session, e.g. QLinearMatMul as qgemm with ONNX Runtime's float requant) or on the host
// (graph/ops.h says which). Every machine node's output is checked against its host reference with
// `verify`.
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
  std::uint64_t programs = 0;  // machine programs run (a batched MatMul runs one per matrix)
  std::uint64_t cycles = 0;    // summed over its programs
  std::uint64_t macs = 0, dram_read = 0, dram_written = 0;
  std::optional<report::VerifyResult> verify;  // machine nodes with verify
  std::string plan;  // machine nodes: its (first) program's plan, as the kernel's planner describes it
  // In a one-program chain of GEMM nodes: the first node's label and the chain's length.
  std::string chain_first;
  std::size_t chain_length = 0;
  std::optional<std::uint64_t> activations_in_lm;  // the chain's first node: boundaries kept in the LMs
};

struct GraphRun {
  std::map<std::string, Tensor> outputs;  // the graph's outputs by name
  std::vector<NodeRun> nodes;
  std::uint64_t cycles = 0;  // the machine nodes' cycles, one after the other
};

struct GraphRunOptions {
  bool verify = false;
  // Consecutive GEMM nodes (each reading the one before's output, nothing else reading it) run as one
  // program with their activations in the LMs; false: every node its own program, through DRAM.
  bool chain = true;
  // Set: every machine program also writes a Chrome trace (--trace-json) to the path this returns for
  // it, called in program order with the label of the (first) node the program runs.
  std::function<std::string(const std::string& node)> trace_path;
};

// Every node that cannot run, with why (one error per node: "node QLinearConv 'c1': needs ...").
core::Errors unsupported_nodes(const Model& model);

// `inputs` by the graph's input names. Errors name the node and what it cannot take.
kernels::Result<GraphRun> run_graph(const Model& model, std::map<std::string, Tensor> inputs,
                                    const machine::MachineConfig& machine, models::Simulation& sim,
                                    const GraphRunOptions& options = {});

}  // namespace treesim::graph
