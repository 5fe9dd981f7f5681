// The whole-network layout plan of a chain of layers (each layer's output is the next one's
// input) as a shortest path. Every layer has candidates (a plan with its input and output layout)
// with a cost; between consecutive layers a conversion costs something that depends on the
// producer's candidate (its output layout) and the consumer's (its input layout). The cheapest
// choice of one candidate per layer is the shortest path through the layered graph
//   source → (0, c) → (1, c') → … → (L−1, c'') → sink
// whose edge into (i, c) costs layer i's candidate c plus the conversion from the previous choice.
// The graph is a DAG: Boost.Graph's dag_shortest_paths solves it in O(Σ |Cᵢ|·|Cᵢ₊₁|).
// No SystemC and no kernel here: callers (tune chain, an MLP runner) supply the costs.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace treesim::plan {

// Cycles to turn layer `layer`'s candidate `from` output into layer `layer + 1`'s candidate `to`
// input.
using ConversionCost = std::function<double(std::size_t layer, std::size_t from, std::size_t to)>;

struct ChainChoice {
  std::vector<std::size_t> candidate;  // per layer, the chosen candidate's index
  std::vector<double> conversion;      // per boundary (layers − 1), the conversion's cycles
  double total = 0;                    // Σ the chosen candidates' costs + Σ conversions
};

// @pre every layer has at least one candidate; costs are finite and ≥ 0.
// @post the least total (on ties, one of the cheapest choices); the total is re-added in layer order.
ChainChoice solve_chain(const std::vector<std::vector<double>>& layer_costs,
                        const ConversionCost& conversion);

// Every combination, for tests: the same least total as solve_chain, in Π |Cᵢ| time (on ties, the
// lexicographically first choice).
ChainChoice brute_force_chain(const std::vector<std::vector<double>>& layer_costs,
                              const ConversionCost& conversion);

}  // namespace treesim::plan
