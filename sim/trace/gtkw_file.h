// A GTKWave save file for a VCD trace, so that `gtkwave FILE.vcd.gtkw` opens with a useful view
// rather than an empty one: the board (DRAM, its ports, its instruction string), then one path down
// the tree (the first traced unit of each level), ending in that PE's units — one group per unit,
// each group in its own colour, busy bits as steps, bytes in decimal, instructions as text.
#pragma once

#include <iosfwd>
#include <string>

#include "sim/topology/topology.h"
#include "sim/trace/trace_filter.h"
#include "sim/trace/trace_log.h"

namespace treesim::trace {

// `vcd_name`: the trace as GTKWave should open it ([dumpfile]).
void write_gtkw(std::ostream& out, const std::string& vcd_name, const TraceLog& log,
                const topology::Topology& topo, const TraceFilter& filter);

}  // namespace treesim::trace
