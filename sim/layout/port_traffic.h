// Traffic per port: which parent units' down (load) or up (gather) ports a layout's transfer uses,
// and how many bytes each carries. The level totals of loader_plan.h are sums and maxima of these;
// the models charge every port its own bytes, so a layout that uses half of a level's units leaves
// the other half's ports idle.
//
// Level X's links join X's units to their parents (the board for X = 0); parents are numbered by
// their global index at level X−1 (row-major over the unit coordinates, root first).
//   load:   a parent below which anything is stored sends its need (the same for every such parent,
//           loader_plan.h's busiest_down_port_bytes); the others send nothing.
//   gather: a parent receives the logical elements whose replica 0 lies below it.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/layout/bound_layout.h"

namespace treesim::layout {

struct PortBytes {
  std::uint64_t parent = 0;
  std::uint64_t bytes = 0;
};
// Per level (index = machine level): the ports that carry bytes, by increasing parent index.
using PortTraffic = std::vector<std::vector<PortBytes>>;

// @pre the layout is resident (no _Time sub-axes).
PortTraffic load_port_traffic(const BoundLayout& layout);
PortTraffic gather_port_traffic(const BoundLayout& layout);

}  // namespace treesim::layout
