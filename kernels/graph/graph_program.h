// Several kernel problems as one program: a graph's machine nodes one after another, each reading
// what an earlier one left in DRAM without the host in between. Each unit's program keeps its
// instructions; its tensors are renamed so that the units' own tensors stay apart ("u2.B") and an
// input another unit makes is that unit's output tensor, read through a view of the unit's own
// shape (program::Load::view) where the shapes differ. The scoreboard then orders a unit's loads of
// it after the stores that make it, and the sequencer overlaps one unit's first loads with the tail
// of the one before, as it does within a kernel.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/conv2d/conv2d.h"
#include "kernels/graph/node_run.h"
#include "kernels/kernel.h"

namespace treesim::graph {

struct ProgramUnit {
  std::string name;  // its phase's name (the node's label)
  std::unique_ptr<kernels::Problem> problem;
  kernels::Plan plan;
  // The unit's tensors that an earlier unit makes: unit tensor → program tensor.
  std::map<std::string, std::string> linked;
  std::string output;  // the unit's output tensor (the program names it `output_name`)
  std::string output_name;
  // Its input or output stays in the LMs for a neighbour (a convolution's): the unit works where its
  // plan put it, never moved to the other end of the LMs.
  bool lm_linked = false;
};

// Plans `prev` (a convolution, its LMs as `prev_lm` says) keeping its output in the LMs and `reader`
// (a convolution, or a GEMM over its flattened rows) reading it there. When both plans fit and
// their estimates beat the two through DRAM, both units take those plans and are linked, and the
// reader's ConvLm is returned; otherwise both problems are left as they were.
std::optional<kernels::ConvLm> link_in_lm(ProgramUnit& prev, const kernels::ConvLm& prev_lm,
                                          ProgramUnit& reader, const machine::MachineConfig& machine);

// Adds the figures of the program's phase `phase` (if it has one) to a node's: its cycles, MACs and
// DRAM bytes.
void add_phase(NodeRun& node, const report::RunStats& stats, const std::string& phase);

// The program tensor of a unit's own tensor: "u{unit}.{tensor}".
std::string unit_tensor(std::size_t unit, const std::string& tensor);

class GraphProgram : public kernels::Problem {
 public:
  explicit GraphProgram(std::vector<ProgramUnit> units) : units_(std::move(units)) {}
  const std::vector<ProgramUnit>& units() const { return units_; }

  core::Errors check(const machine::MachineConfig& machine) const override;
  // The units' plans as they are: the estimate is their sum, the description theirs in turn.
  kernels::Result<kernels::Plan> plan(const machine::MachineConfig& machine) const override;
  kernels::Result<program::Program> program(const kernels::Plan& plan,
                                            const machine::MachineConfig& machine) const override;
  kernels::DramImage inputs() const override;
  kernels::DramImage take_inputs() override;
  std::vector<std::string> input_tensors() const override;
  // The graph verifies node by node (tools/session/graph_run.cpp): each unit's output against its host reference
  // on the inputs the program gave it.
  kernels::Result<kernels::DramImage> reference() const override;
  // One phase per unit (its name), and each unit's own phases as "name/phase".
  std::vector<Phase> phases(const kernels::Plan& plan, const program::Program& program,
                            const machine::MachineConfig& machine) const override;
  void add_report_fields(const kernels::Plan& plan, const machine::MachineConfig& machine,
                         report::RunStats& stats) const override;
  std::vector<kernels::OutputArray> outputs() const override;

 private:
  std::string rename(std::size_t unit, const std::string& tensor) const;
  std::vector<ProgramUnit> units_;
  // Filled by program(): each unit's instructions [first, last) and its own phases, for phases().
  mutable std::vector<std::pair<std::size_t, std::size_t>> ranges_;
  mutable std::vector<Phase> sub_phases_;
};

}  // namespace treesim::graph
