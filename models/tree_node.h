// An interior unit of the tree (L2B, L1B, MAB, ... any level above the PE): its memory and its
// children, built recursively from the topology so that SystemC names follow the tree
// (`board.L2B_3.L1B_5.MAB_2`). The links to its children are the level's down/up ports, whose
// occupancy the board's driver accounts for.
#pragma once

#include <systemc>

#include <cstdint>
#include <memory>
#include <vector>

#include "models/pe.h"
#include "sim/machine/machine_config.h"
#include "sim/topology/topology.h"

namespace treesim::models {

class TreeNode : public sc_core::sc_module {
 public:
  // Builds the unit `unit` of the topology and, below it, its whole subtree. PEs are appended to
  // `pes` in global PE order.
  TreeNode(const sc_core::sc_module_name& name, const machine::MachineConfig& config,
           const topology::Topology& topo, topology::Unit unit, std::vector<Pe*>& pes);
  TreeNode(const TreeNode&) = delete;
  TreeNode& operator=(const TreeNode&) = delete;

  std::uint64_t memory_bytes() const { return memory_.size(); }

 private:
  std::vector<std::uint8_t> memory_;
  std::vector<std::unique_ptr<TreeNode>> nodes_;
  std::vector<std::unique_ptr<Pe>> pes_;
};

// Builds the children of `unit` (used by the board and by TreeNode).
void build_children(const machine::MachineConfig& config, const topology::Topology& topo, topology::Unit unit,
                    std::vector<std::unique_ptr<TreeNode>>& nodes, std::vector<std::unique_ptr<Pe>>& own_pes,
                    std::vector<Pe*>& pes);

}  // namespace treesim::models
