// The machine's tree as a Boost.Graph graph: a vertex per unit (the board, then every unit of every
// level), an edge per parent→child link carrying that link's bandwidths and latency.
// Built once from a MachineConfig (level by level, no recursion), then immutable.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "sim/machine/machine_config.h"

namespace treesim::topology {

// Level index of the board itself (the root, above level 0).
inline constexpr int kBoardLevel = -1;

struct UnitProps {
  int level = kBoardLevel;  // index into MachineConfig::levels, or kBoardLevel
  std::uint64_t index = 0;  // position among all units of its level, in tree order
  std::string name;         // `PE_1`: the last component of its path (the board: `board`)
};

// A link joins a unit to its parent. Its rates and latency are its level's, which the cost model
// (sim/timing) reads from the machine; the graph holds only which level it is.
struct LinkProps {
  int level = 0;  // the child's level
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, UnitProps, LinkProps>;
using Unit = Graph::vertex_descriptor;

class Topology {
 public:
  explicit Topology(const machine::MachineConfig& config);

  const Graph& graph() const { return graph_; }
  std::size_t level_count() const { return level_names_.size(); }
  const std::string& level_name(int level) const;
  std::uint64_t units_at_level(int level) const;  // kBoardLevel → 1
  std::uint64_t total_units() const { return boost::num_vertices(graph_); }

  Unit board() const { return 0; }
  // The unit with global index `index` among the units of `level`.
  Unit unit(int level, std::uint64_t index) const;
  int level_of(Unit u) const { return graph_[u].level; }
  std::uint64_t index_of(Unit u) const { return graph_[u].index; }
  // `PE_1`: the last component of path_name(u), a SystemC module's own name.
  const std::string& local_name(Unit u) const { return graph_[u].name; }
  // `board.L2B_3.L1B_5.MAB_2.PE_1`: SystemC name, stats key, VCD scope. Built on demand, so the
  // tree's memory stays linear in its units whatever the depth.
  std::string path_name(Unit u) const;
  std::optional<Unit> find(const std::string& path_name) const;

  std::optional<Unit> parent(Unit u) const;
  std::vector<Unit> children(Unit u) const;
  // The link from `u`'s parent down to `u` (u must not be the board).
  const LinkProps& uplink(Unit u) const;

  Unit lowest_common_ancestor(Unit a, Unit b) const;
  // Units from a to b through their lowest common ancestor, both ends included.
  std::vector<Unit> path(Unit a, Unit b) const;

  // Per-level coordinates of a unit: its child index under its parent at each level from level 0
  // down to its own (for a PE on the board: {L2B, L1B, MAB, PE}).
  std::vector<std::uint64_t> coordinates(Unit u) const;
  Unit from_coordinates(const std::vector<std::uint64_t>& coords) const;
  std::uint64_t pe_id(const std::vector<std::uint64_t>& coords) const;
  std::vector<std::uint64_t> pe_coordinates(std::uint64_t pe_id) const;

  // Graphviz DOT of the tree down to level `depth` (0 = board only; default: every level); each
  // link labelled with `link_label(level)` when given (the command line gives its rates).
  void write_dot(std::ostream& out, std::optional<std::size_t> depth = std::nullopt,
                 const std::function<std::string(int level)>& link_label = nullptr) const;

 private:
  Graph graph_;
  std::vector<std::string> level_names_;
  std::vector<std::uint64_t> fanouts_;
  std::vector<std::uint64_t> first_vertex_;  // per level: vertex of its unit 0 (level-major order)
  std::vector<std::uint64_t> units_;         // per level
};

}  // namespace treesim::topology
