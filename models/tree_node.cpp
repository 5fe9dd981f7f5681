#include "models/tree_node.h"

#include <string>

namespace treesim::models {

void build_children(const machine::MachineConfig& config, const topology::Topology& topo, topology::Unit unit,
                    std::vector<std::unique_ptr<TreeNode>>& nodes, std::vector<std::unique_ptr<Pe>>& own_pes,
                    TreeIndex& index) {
  const int pe_level = static_cast<int>(config.levels.size()) - 1;
  const std::uint64_t lm = config.lm_bytes();
  for (topology::Unit child : topo.children(unit)) {
    const std::string& name = topo.local_name(child);
    if (topo.level_of(child) == pe_level) {
      const std::uint64_t id = topo.index_of(child);
      own_pes.push_back(std::make_unique<Pe>(name.c_str(), id, index.lm_arena + id * lm, lm));
      index.pes[id] = own_pes.back().get();
    } else {
      nodes.push_back(std::make_unique<TreeNode>(name.c_str(), config, topo, child, index));
    }
  }
}

void destroy_children(std::vector<std::unique_ptr<TreeNode>>& nodes,
                      std::vector<std::unique_ptr<Pe>>& own_pes) {
  for (auto pe = own_pes.rbegin(); pe != own_pes.rend(); ++pe) pe->reset();
  for (auto node = nodes.rbegin(); node != nodes.rend(); ++node) {
    if (!*node) continue;
    destroy_children((*node)->nodes_, (*node)->pes_);
    node->reset();
  }
}

void first_pes(std::vector<std::unique_ptr<TreeNode>>& nodes, std::vector<std::unique_ptr<Pe>>& own_pes,
               std::size_t count, std::vector<std::unique_ptr<Pe>*>& out) {
  for (std::size_t i = 0; i < own_pes.size() && out.size() < count; ++i) out.push_back(&own_pes[i]);
  for (std::size_t i = 0; i < nodes.size() && out.size() < count; ++i)
    first_pes(nodes[i]->nodes_, nodes[i]->pes_, count, out);
}

TreeNode::TreeNode(const sc_core::sc_module_name& name, const machine::MachineConfig& config,
                   const topology::Topology& topo, topology::Unit unit, TreeIndex& index)
    : sc_core::sc_module(name),
      memory_bytes_(config.levels.at(static_cast<std::size_t>(topo.level_of(unit))).memory_bytes) {
  const auto level = static_cast<std::size_t>(topo.level_of(unit));
  index.links[level + 1][topo.index_of(unit)] = &link_;
  build_children(config, topo, unit, nodes_, pes_, index);
}

}  // namespace treesim::models
