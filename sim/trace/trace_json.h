// The run as Chrome trace-event JSON, which ui.perfetto.dev and chrome://tracing open: one process
// per tree level (the board first), one thread per unit and resource with its holds as complete
// slices ("ph":"X", named by instruction, args: instr and the work), the bytes in flight of ports
// and DRAM as counters ("ph":"C"), and on the board the instructions themselves, one slice each
// from start to end (args: ready, waits_for, bytes, MACs, layout). Timestamps are machine cycles
// (the viewer's 1 µs = 1 cycle); otherData names the machine and the kernel.
#pragma once

#include <iosfwd>

#include "sim/topology/topology.h"
#include "sim/trace/trace_filter.h"
#include "sim/trace/trace_log.h"

namespace treesim::trace {

// With no unit glob in `filter`, each level keeps one unit per distinct timeline (select_units).
void write_trace_json(std::ostream& out, const TraceLog& log, const topology::Topology& topo,
                      const TraceFilter& filter);

}  // namespace treesim::trace
