// Where a run waited, read back from its trace-event JSON (--trace-json): for each instruction, the
// cycles between its data being ready and its start (a resource was still held by another
// instruction) and the cycles its resources sat free, after it was issued (the instruction before
// it started), before its data were ready (it waited for the instruction that writes its input or
// still reads its output). `treesim trace summarize` prints
// the longest.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/timing/critical_path.h"

namespace treesim::trace {

// A trace file that cannot be read: what() is one line naming the file and what was expected.
class TraceFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TracedInstr {
  std::string label;
  std::uint64_t ready = 0, start = 0, end = 0;
  std::optional<std::size_t> waits_for;
};

struct TracedSlice {
  std::string track;  // the thread's name: `board.L2B_0.down (and 15 alike)`
  std::size_t instr = 0;
  std::uint64_t start = 0, end = 0;
};

struct TraceFile {
  std::string machine, kernel;
  std::uint64_t end_cycle = 0;
  std::vector<TracedInstr> instrs;  // by index
  std::vector<TracedSlice> slices;  // the units' resources
};

// Parses a trace written by write_trace_json; `file` names it in errors.
TraceFile read_trace_file(const std::string& text, const std::string& file);

struct Stall {
  std::size_t instr = 0;
  std::uint64_t from = 0, to = 0;  // the wait, in cycles
  bool data = false;               // waited for data (else for a resource)
  std::string resource;            // a resource wait: the track that was held
  std::optional<std::size_t> by;   // the instruction waited for
  std::uint64_t cycles() const { return to - from; }
};

// The run's critical path (timing/critical_path.h) from the trace: an instruction's resource is the
// track of its longest slice, and the one it waited for on a resource is the slice before its own on
// that track.
timing::CriticalPath trace_critical_path(const TraceFile& trace);

// "critical path: ..." and its `top` longest stretches (neighbours on one resource joined), in time
// order.
std::string path_table(const TraceFile& trace, const timing::CriticalPath& path, std::size_t top);

// Every stall of the run, longest first (ties: by instruction).
std::vector<Stall> find_stalls(const TraceFile& trace);

// The `top` longest as a table, with a heading naming the trace.
std::string stall_table(const TraceFile& trace, const std::vector<Stall>& stalls, std::size_t top,
                        const std::string& file);

}  // namespace treesim::trace
