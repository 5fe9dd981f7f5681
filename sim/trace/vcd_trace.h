// The VCD trace of a run, derived from its TraceLog at the end (time unit = one machine cycle).
// Every traced unit declares its own signals under its own scope
// (`board.L2B_3.L1B_5.MAB_2.PE_1.mac_busy`); units whose waveforms are equal — compared, not
// assumed — share one identifier, so a trace of an 8,192-PE board whose PEs work alike holds each
// change once, while a unit that idles as its siblings work has waveforms of its own.
#pragma once

#include <iosfwd>
#include <string>

#include "sim/topology/topology.h"
#include "sim/trace/trace_filter.h"
#include "sim/trace/trace_log.h"

namespace treesim::trace {

// What a unit's string signal `instr` shows while it holds nothing.
inline constexpr const char* kIdle = "idle";

void write_vcd(std::ostream& out, const TraceLog& log, const topology::Topology& topo,
               const TraceFilter& filter);

// The instructions at work in `holds` (sorted by start) over time: (cycle, label) at each change,
// labels joined by '+' when several overlap, kIdle when none. Shared by the VCD and its tests.
std::vector<std::pair<std::uint64_t, std::string>> instruction_changes(const std::vector<Hold>& holds,
                                                                       const TraceLog& log);

}  // namespace treesim::trace
