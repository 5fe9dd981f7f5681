// The critical path of a run: the chain of instructions that set its end. It starts at the last
// instruction to finish and goes back through what each one waited for — the instruction whose
// result it read (data), the one that still held a port or unit it needed (a resource), or the one
// before it in the program (which issues it) — to the start of the run. Every cycle of the run lies
// on one stretch of the path, charged to the resource its instruction spent the time on, so the
// path says what bound the run, including a tail where only one resource is busy (a store of C after
// the last MAC), which a roofline's totals cannot show.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace treesim::timing {

// One instruction as the run timed it.
struct PathInstr {
  std::string kind;  // "load", "mac", ... (instruction kind names)
  std::string label;
  std::uint64_t ready = 0, start = 0, end = 0;  // cycles from the run's start
  std::optional<std::size_t> waits_for;         // the earlier instruction whose end set `ready`
  std::optional<std::size_t> held_by;           // start > ready: the one that held its resource
  std::string resource;                         // what it spends its time on (its busiest resource)
};

struct PathStretch {
  std::size_t instr = 0;
  std::uint64_t from = 0, to = 0;  // [from, to) of the run
  std::string resource;            // the instruction's resource, or "issue" for a gap between them
};

struct CriticalPath {
  std::vector<PathStretch> stretches;                // in time order, covering [0, end of the run)
  std::map<std::string, std::uint64_t> by_resource;  // cycles on the path per resource
  std::uint64_t cycles = 0;                          // the run's: Σ by_resource
  // From the end of the last MAC (mac, ternary_mac or sparse_mac) to the end of the run, and the
  // instruction kinds on the path there (none when the run ends with a MAC).
  std::uint64_t after_last_mac = 0;
  std::vector<std::string> after_last_mac_kinds;
};

CriticalPath critical_path(const std::vector<PathInstr>& instrs);

// "70% L2B.down, 30% mac; 30% after the last MAC (store)": the resources by share (those under 1%
// left out), then the tail after the last MAC when there is one.
std::string path_summary(const CriticalPath& path);

}  // namespace treesim::timing
