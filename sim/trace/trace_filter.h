// Which units a trace keeps: the --trace-depth / --trace-units filters, and for the Perfetto JSON
// by default one representative of each distinct timeline per level (an 8,192-PE board whose PEs
// work alike shows one PE, plus every unit that does something else).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/topology/topology.h"
#include "sim/trace/trace_log.h"

namespace treesim::trace {

struct TraceFilter {
  // Keep units down to this many levels below the board (0 = the board only); -1 = all.
  int depth = -1;
  // Keep only units whose path matches this glob (fnmatch), e.g. "board.L2B_0.L1B_1*"; their
  // ancestors stay as scopes. Empty = all (the VCD) or representatives (the JSON).
  std::string units;
};

struct Selection {
  std::vector<char> scope;           // per unit: written as a scope (it or a descendant is traced)
  std::vector<char> traced;          // per unit: its signals are written
  std::vector<std::uint64_t> alike;  // per traced unit: how many units of its level it stands for
};

// The units `filter` keeps. With `representatives` and no unit glob, a unit is traced only when no
// earlier unit of its level (in tree order) has the same timeline, and stands for those that do.
Selection select_units(const topology::Topology& topo, const TraceFilter& filter, const TraceLog& log,
                       bool representatives);

// Every unit in depth-first tree order (the board first), as scopes nest.
std::vector<topology::Unit> tree_order(const topology::Topology& topo);

}  // namespace treesim::trace
