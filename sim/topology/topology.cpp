#include "sim/topology/topology.h"

#include <algorithm>
#include <ostream>
#include <stdexcept>

#include <fmt/format.h>

namespace treesim::topology {

Topology::Topology(const machine::MachineConfig& config) {
  if (config.levels.empty()) throw std::invalid_argument("topology: the machine has no levels");
  UnitProps root;
  root.name = "board";
  boost::add_vertex(root, graph_);
  // Units are added level by level, so the units of one level are contiguous vertices and a
  // unit's global index within its level is its offset from the level's first vertex.
  std::vector<Unit> parents{0};
  for (std::size_t l = 0; l < config.levels.size(); ++l) {
    const auto& lc = config.levels[l];
    level_names_.push_back(lc.name);
    fanouts_.push_back(lc.fanout);
    first_vertex_.push_back(boost::num_vertices(graph_));
    std::vector<Unit> next;
    next.reserve(parents.size() * lc.fanout);
    std::uint64_t index = 0;
    for (Unit p : parents) {
      for (std::uint64_t c = 0; c < lc.fanout; ++c) {
        UnitProps props;
        props.level = static_cast<int>(l);
        props.index = index++;
        props.name = lc.name + '_' + std::to_string(c);  // not fmt: 10,400 names, a third of this loop
        Unit u = boost::add_vertex(std::move(props), graph_);
        LinkProps link{static_cast<int>(l)};
        boost::add_edge(p, u, link, graph_);
        next.push_back(u);
      }
    }
    units_.push_back(index);
    parents = std::move(next);
  }
}

const std::string& Topology::level_name(int level) const {
  static const std::string kBoard = "board";
  if (level == kBoardLevel) return kBoard;
  return level_names_.at(static_cast<std::size_t>(level));
}

std::uint64_t Topology::units_at_level(int level) const {
  if (level == kBoardLevel) return 1;
  return units_.at(static_cast<std::size_t>(level));
}

Unit Topology::unit(int level, std::uint64_t index) const {
  if (level == kBoardLevel) return board();
  if (index >= units_at_level(level))
    throw std::out_of_range(fmt::format("topology: {} {} does not exist (there are {})", level_name(level),
                                        index, units_at_level(level)));
  return first_vertex_.at(static_cast<std::size_t>(level)) + index;
}

std::string Topology::path_name(Unit u) const {
  std::vector<Unit> chain{u};
  while (auto p = parent(chain.back())) chain.push_back(*p);
  std::string path;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it)
    path += (path.empty() ? "" : ".") + graph_[*it].name;
  return path;
}

std::optional<Unit> Topology::find(const std::string& name) const {
  // Walk down by components: "board", then one child per component.
  std::size_t start = 0;
  std::optional<Unit> at;
  while (start <= name.size()) {
    const std::size_t dot = name.find('.', start);
    const std::string part = name.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    std::optional<Unit> next;
    if (!at) {
      if (part == graph_[board()].name) next = board();
    } else {
      for (Unit c : children(*at))
        if (graph_[c].name == part) next = c;
    }
    if (!next) return std::nullopt;
    at = next;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return at;
}

std::optional<Unit> Topology::parent(Unit u) const {
  auto [begin, end] = boost::in_edges(u, graph_);
  if (begin == end) return std::nullopt;
  return boost::source(*begin, graph_);
}

std::vector<Unit> Topology::children(Unit u) const {
  std::vector<Unit> out;
  for (auto [e, end] = boost::out_edges(u, graph_); e != end; ++e) out.push_back(boost::target(*e, graph_));
  return out;
}

const LinkProps& Topology::uplink(Unit u) const {
  auto [begin, end] = boost::in_edges(u, graph_);
  if (begin == end) throw std::invalid_argument("topology: the board has no parent link");
  return graph_[*begin];
}

Unit Topology::lowest_common_ancestor(Unit a, Unit b) const {
  while (level_of(a) > level_of(b)) a = *parent(a);
  while (level_of(b) > level_of(a)) b = *parent(b);
  while (a != b) {
    a = *parent(a);
    b = *parent(b);
  }
  return a;
}

std::vector<Unit> Topology::path(Unit a, Unit b) const {
  Unit top = lowest_common_ancestor(a, b);
  std::vector<Unit> up, down;
  for (Unit u = a; u != top; u = *parent(u)) up.push_back(u);
  for (Unit u = b; u != top; u = *parent(u)) down.push_back(u);
  up.push_back(top);
  up.insert(up.end(), down.rbegin(), down.rend());
  return up;
}

std::vector<std::uint64_t> Topology::coordinates(Unit u) const {
  std::vector<std::uint64_t> coords(static_cast<std::size_t>(level_of(u) + 1));
  for (int l = level_of(u); l >= 0; --l) {
    coords[static_cast<std::size_t>(l)] = index_of(u) % fanouts_[static_cast<std::size_t>(l)];
    u = *parent(u);
  }
  return coords;
}

Unit Topology::from_coordinates(const std::vector<std::uint64_t>& coords) const {
  if (coords.size() > level_count()) throw std::out_of_range("topology: more coordinates than levels");
  std::uint64_t index = 0;
  for (std::size_t l = 0; l < coords.size(); ++l) {
    if (coords[l] >= fanouts_[l])
      throw std::out_of_range(fmt::format("topology: {} coordinate {} is not below the fan-out {}",
                                          level_names_[l], coords[l], fanouts_[l]));
    index = index * fanouts_[l] + coords[l];
  }
  return unit(static_cast<int>(coords.size()) - 1, index);
}

std::uint64_t Topology::pe_id(const std::vector<std::uint64_t>& coords) const {
  if (coords.size() != level_count())
    throw std::out_of_range("topology: a PE id needs one coordinate per level");
  return index_of(from_coordinates(coords));
}

std::vector<std::uint64_t> Topology::pe_coordinates(std::uint64_t id) const {
  return coordinates(unit(static_cast<int>(level_count()) - 1, id));
}

void Topology::write_dot(std::ostream& out, std::optional<std::size_t> depth,
                         const std::function<std::string(int)>& link_label) const {
  const std::size_t max_level = depth ? std::min(*depth, level_count()) : level_count();
  out << "digraph treesim {\n  rankdir=TB;\n  node [shape=box, fontname=\"Helvetica\"];\n";
  for (Unit u = 0; u < boost::num_vertices(graph_); ++u) {
    if (static_cast<std::size_t>(level_of(u) + 1) > max_level) continue;
    out << fmt::format("  \"{}\" [label=\"{}\"];\n", path_name(u), graph_[u].name);
  }
  for (auto [e, end] = boost::edges(graph_); e != end; ++e) {
    Unit child = boost::target(*e, graph_);
    if (static_cast<std::size_t>(level_of(child) + 1) > max_level) continue;
    const std::string label = link_label ? fmt::format(" [label=\"{}\"]", link_label(graph_[*e].level)) : "";
    out << fmt::format("  \"{}\" -> \"{}\"{};\n", path_name(boost::source(*e, graph_)), path_name(child),
                       label);
  }
  out << "}\n";
}

}  // namespace treesim::topology
