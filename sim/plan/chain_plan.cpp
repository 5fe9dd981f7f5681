#include "sim/plan/chain_plan.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dag_shortest_paths.hpp>

#include <limits>
#include <stdexcept>

namespace treesim::plan {
namespace {

// The total of a given choice, its conversions filled in.
ChainChoice priced(std::vector<std::size_t> candidate, const std::vector<std::vector<double>>& costs,
                   const ConversionCost& conversion) {
  ChainChoice c;
  c.candidate = std::move(candidate);
  for (std::size_t i = 0; i < costs.size(); ++i) {
    c.total += costs[i][c.candidate[i]];
    if (i + 1 < costs.size()) {
      c.conversion.push_back(conversion(i, c.candidate[i], c.candidate[i + 1]));
      c.total += c.conversion.back();
    }
  }
  return c;
}

void check(const std::vector<std::vector<double>>& costs) {
  if (costs.empty()) throw std::invalid_argument("solve_chain: no layers");
  for (const auto& layer : costs)
    if (layer.empty()) throw std::invalid_argument("solve_chain: a layer without candidates");
}

}  // namespace

ChainChoice solve_chain(const std::vector<std::vector<double>>& costs, const ConversionCost& conversion) {
  check(costs);
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                      boost::property<boost::edge_weight_t, double>>;
  // Vertex 0 is the source, then every (layer, candidate) in order, then the sink.
  std::vector<std::size_t> first(costs.size());
  std::size_t vertices = 1;
  for (std::size_t i = 0; i < costs.size(); ++i) first[i] = vertices, vertices += costs[i].size();
  const std::size_t sink = vertices++;
  Graph g(vertices);
  for (std::size_t c = 0; c < costs[0].size(); ++c) boost::add_edge(0, first[0] + c, costs[0][c], g);
  for (std::size_t i = 0; i + 1 < costs.size(); ++i)
    for (std::size_t a = 0; a < costs[i].size(); ++a)
      for (std::size_t b = 0; b < costs[i + 1].size(); ++b)
        boost::add_edge(first[i] + a, first[i + 1] + b, conversion(i, a, b) + costs[i + 1][b], g);
  for (std::size_t c = 0; c < costs.back().size(); ++c) boost::add_edge(first.back() + c, sink, 0.0, g);
  std::vector<double> distance(vertices, std::numeric_limits<double>::infinity());
  std::vector<std::size_t> predecessor(vertices);
  for (std::size_t v = 0; v < vertices; ++v) predecessor[v] = v;
  boost::dag_shortest_paths(g, 0, boost::distance_map(distance.data()).predecessor_map(predecessor.data()));
  std::vector<std::size_t> candidate(costs.size());
  std::size_t v = predecessor[sink];
  for (std::size_t i = costs.size(); i-- > 0;) {
    candidate[i] = v - first[i];
    v = predecessor[v];
  }
  return priced(std::move(candidate), costs, conversion);
}

ChainChoice brute_force_chain(const std::vector<std::vector<double>>& costs,
                              const ConversionCost& conversion) {
  check(costs);
  std::vector<std::size_t> at(costs.size(), 0);
  ChainChoice best;
  bool any = false;
  for (;;) {
    ChainChoice c = priced(at, costs, conversion);
    if (!any || c.total < best.total) best = std::move(c), any = true;
    std::size_t i = costs.size();
    while (i-- > 0) {
      if (++at[i] < costs[i].size()) break;
      at[i] = 0;
    }
    if (i == static_cast<std::size_t>(-1)) break;
  }
  return best;
}

}  // namespace treesim::plan
