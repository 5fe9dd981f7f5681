// An interior unit of the tree (L2B, L1B, MAB, ... any level above the PE): its memory, its link to
// its children (one down port and one up port, shared by all of them, each with its own timeline,
// counters and trace) and its children, built from the topology so that SystemC names follow the
// tree (`board.L2B_3.L1B_5.MAB_2`). The board is the parent of level 0 and has a link of its own.
#pragma once

#include <systemc>

#include <cstdint>
#include <memory>
#include <vector>

#include "models/pe.h"
#include "models/timeline.h"
#include "sim/machine/machine_config.h"
#include "sim/topology/topology.h"

namespace treesim::models {

// A parent's ports towards its children.
struct Link {
  Timeline down, up;
};

// What building a subtree registers with the board: every PE (by global PE id) and every link (by
// the level of the children it serves, then the parent's global index at the level above).
struct TreeIndex {
  std::vector<Pe*> pes;
  std::vector<std::vector<Link*>> links;  // [level][parent]
  std::uint8_t* lm_arena = nullptr;
};

class TreeNode : public sc_core::sc_module {
 public:
  // Builds the unit `unit` of the topology and, below it, its whole subtree (the recursion is as
  // deep as the machine has levels, which machine validation bounds).
  TreeNode(const sc_core::sc_module_name& name, const machine::MachineConfig& config,
           const topology::Topology& topo, topology::Unit unit, TreeIndex& index);
  TreeNode(const TreeNode&) = delete;
  TreeNode& operator=(const TreeNode&) = delete;

  std::uint64_t memory_bytes() const { return memory_bytes_; }
  Link& link() { return link_; }

 private:
  friend void destroy_children(std::vector<std::unique_ptr<TreeNode>>&, std::vector<std::unique_ptr<Pe>>&);
  friend void first_pes(std::vector<std::unique_ptr<TreeNode>>&, std::vector<std::unique_ptr<Pe>>&,
                        std::size_t, std::vector<std::unique_ptr<Pe>*>&);

  const std::uint64_t memory_bytes_;  // level memory; modelled as a size only (nothing stages in it yet)
  Link link_;
  std::vector<std::unique_ptr<TreeNode>> nodes_;
  std::vector<std::unique_ptr<Pe>> pes_;
};

// Builds the children of `unit` (used by the board and by TreeNode) and registers them in `index`.
void build_children(const machine::MachineConfig& config, const topology::Topology& topo, topology::Unit unit,
                    std::vector<std::unique_ptr<TreeNode>>& nodes, std::vector<std::unique_ptr<Pe>>& own_pes,
                    TreeIndex& index);

// Destroys the children of a unit and their subtrees, the last built first: the reverse of
// build_children's order, children before their parents (see Board::~Board for why).
void destroy_children(std::vector<std::unique_ptr<TreeNode>>& nodes,
                      std::vector<std::unique_ptr<Pe>>& own_pes);
// The first `count` PEs built below a unit (fewer when it has fewer), in the order they were built.
void first_pes(std::vector<std::unique_ptr<TreeNode>>& nodes, std::vector<std::unique_ptr<Pe>>& own_pes,
               std::size_t count, std::vector<std::unique_ptr<Pe>*>& out);

}  // namespace treesim::models
