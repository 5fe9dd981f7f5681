// What one node of an imported graph did in a run: where it ran, the programs it ran in, its
// cycles, MACs and DRAM bytes, its plan and verification. The graph's composite program
// (graph_program.h) fills it from a run's stats; tools/session/graph_run.h runs the graph.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kernels/graph/ops.h"
#include "sim/report/run_stats.h"

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

// One more program of the node: its figures, and its plan when it is the first.
void add_program(NodeRun& record, const std::string& plan, const report::RunStats& stats);
// A verification of (part of) the node's output: mismatches add up, the first one is kept with
// `where` before it.
void add_verify(NodeRun& record, const report::VerifyResult& v, const std::string& where);

}  // namespace treesim::graph
