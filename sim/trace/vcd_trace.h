// A VCD trace written from the run's log of value changes (not by sampling every signal every
// step, so cost grows with changes, not with units × time). Lock-step units of one level share
// their waveforms: every unit of a level declares its signals under its own scope
// (`board.L2B_3.L1B_5.MAB_2.PE_1.mac_busy`) with the level's VCD identifier, so a trace of an
// 8,192-PE board holds each change once. Time unit = one machine cycle.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "sim/topology/topology.h"

namespace treesim::trace {

struct TraceFilter {
  // Keep units down to this many levels below the board (0 = the board only); -1 = all.
  int depth = -1;
  // Keep only units whose path matches this glob (fnmatch), e.g. "board.L2B_0.L1B_1*"; their
  // ancestors stay as scopes. Empty = all.
  std::string units;
};

class VcdTrace {
 public:
  using SignalId = std::size_t;

  // A signal that every unit of `level` carries (topology::kBoardLevel for the board itself): lock-step
  // units whose waveforms the model proves equal share one identifier.
  SignalId add_signal(int level, const std::string& name, unsigned width);
  // A signal of one unit only (a link port, whose waveform depends on which units a transfer reaches).
  SignalId add_unit_signal(topology::Unit unit, int level, const std::string& name, unsigned width);
  // Records that `signal` takes `value` at `cycle`. Changes may be recorded out of time order.
  void change(std::uint64_t cycle, SignalId signal, std::uint64_t value);
  std::size_t change_count() const { return changes_.size(); }

  // Writes the VCD; `end_cycle` closes the trace.
  void write(std::ostream& out, const topology::Topology& topo, const TraceFilter& filter,
             std::uint64_t end_cycle) const;

 private:
  struct Signal {
    int level;
    std::string name;
    unsigned width;
    bool per_unit = false;
    topology::Unit unit = 0;
  };
  struct Change {
    std::uint64_t cycle;
    std::uint64_t order;
    SignalId signal;
    std::uint64_t value;
  };
  std::vector<Signal> signals_;
  std::vector<Change> changes_;
};

}  // namespace treesim::trace
