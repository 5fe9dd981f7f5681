// What a run did, resource by resource, as the trace writers need it: every hold of a port or PE
// unit (when, how much work, for which instruction) and every instruction's span. The modules
// that own a resource record its holds (models/timeline.h); the VCD, Perfetto and GTKWave writers
// derive their signals from this log at the end of the run, so its cost grows with holds, not
// with cycles × units.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/timing/resource.h"
#include "sim/topology/topology.h"

namespace treesim::trace {

// The resources a unit holds are the timing model's: the board holds DRAM's port, a parent the
// ports of its children's level (timing::Resource::port), a PE its units. Traces name them by
// timing::trace_name ("down", "mac", ...) and count their work by timing::work_name.
using timing::Resource;

// One hold of a resource: [start, end) in cycles from the run's start.
struct Hold {
  std::uint64_t start = 0, end = 0, work = 0;
  std::size_t instr = 0;
  bool operator==(const Hold& o) const {
    return start == o.start && end == o.end && work == o.work && instr == o.instr;
  }
};

// One instruction of the run, as the report times it.
struct InstrSpan {
  std::string label;  // `load#0:A[0:64,0:32]`, `mac#3:8x256x19`
  std::string kind;
  std::uint64_t ready = 0;                       // its data were ready (the scoreboard)
  std::uint64_t start = 0, end = 0;              // cycles from the run's start
  std::optional<std::size_t> waits_for;          // the instruction whose data or buffer set `ready`
  std::map<std::string, std::uint64_t> numbers;  // bytes, macs, ...
  std::map<std::string, std::string> texts;      // layout, tensor, ...
};

class TraceLog {
 public:
  // Every unit of `level` has resource `r` (declared so that a unit that never holds it shows idle).
  void declare(int level, Resource r);
  const std::vector<Resource>& resources(int level) const;
  // The instruction the holds that follow belong to.
  void set_instruction(std::size_t index) { current_ = index; }
  // `unit` holds `r` over [start, end) for `work`. A hold that continues the same instruction's
  // previous one on the resource (a DRAM burst's next access) extends it.
  void hold(topology::Unit unit, Resource r, std::uint64_t start, std::uint64_t end, std::uint64_t work);
  // Every unit of `level` holds `r` alike: lock-step units whose equal work the model has checked.
  void hold_level(int level, Resource r, std::uint64_t start, std::uint64_t end, std::uint64_t work);
  // The holds of `r` at `unit` (of `level`): its own and its level's, by start.
  std::vector<Hold> holds(topology::Unit unit, int level, Resource r) const;

  std::vector<InstrSpan>& instructions() { return instructions_; }
  const std::vector<InstrSpan>& instructions() const { return instructions_; }
  std::uint64_t end_cycle = 0;  // the run's last cycle
  std::string machine, kernel;  // named in the JSON's metadata

 private:
  static void add(std::vector<Hold>& list, const Hold& h);
  std::size_t current_ = 0;
  std::map<int, std::vector<Resource>> declared_;
  std::unordered_map<std::uint64_t, std::vector<Hold>>
      own_;  // key: unit × 256 + resource index (at most 1 + 4 + 2 × 64)
  std::map<std::pair<int, std::size_t>, std::vector<Hold>> level_;  // (level, resource index)
  std::vector<InstrSpan> instructions_;
};

}  // namespace treesim::trace
