// The busy timelines of a module's identical resources, as lanes: the parent ports of one tree
// level in one direction, or one PE unit in every PE. Structure of arrays with a uniform fast path:
// while every lane is alike (the lock-step case) the lanes are one next-free time and one pair of
// counters, so a step that holds them all costs O(1); a step with unequal work (sparse walks, a
// layout that uses some ports) spreads them into per-lane arrays, and the next step that holds
// every lane equally makes them alike again. Timestamp arithmetic, no process and no clock.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/timing/resource.h"
#include "sim/trace/trace_log.h"

namespace treesim::models {

class Lanes {
 public:
  Lanes() = default;
  explicit Lanes(std::uint64_t count) : count_(count) {}

  std::uint64_t size() const { return count_; }
  bool alike() const { return next_free_.empty(); }
  std::uint64_t next_free(std::uint64_t lane) const { return alike() ? common_next_free_ : next_free_[lane]; }
  // The latest next-free time of any lane.
  std::uint64_t latest_free() const { return latest_free_; }
  // Counters of this run (since start_run).
  std::uint64_t busy_cycles(std::uint64_t lane) const {
    return common_busy_ + (busy_.empty() ? 0 : busy_[lane]);
  }
  std::uint64_t work(std::uint64_t lane) const { return common_work_ + (work_.empty() ? 0 : work_[lane]); }

  // Every lane holds `cycles` from `at` (≥ every lane's next free time), moving `work` each. O(1).
  void hold_all(std::uint64_t at, std::uint64_t cycles, std::uint64_t work);
  // Lane `lane` holds `cycles` from `at` (≥ its next free time), moving `work`.
  void hold_one(std::uint64_t lane, std::uint64_t at, std::uint64_t cycles, std::uint64_t work);

  // A new run from cycle `origin`: the counters restart; holds are traced, when `log` is given, as
  // resource `resource` of units `first_unit + lane` of trace level `level`. Lanes that hold alike
  // are traced once for the level.
  void start_run(std::uint64_t origin, trace::TraceLog* log, topology::Unit first_unit, int level,
                 timing::Resource resource);
  void detach_log() { log_ = nullptr; }

 private:
  void spread();  // per-lane arrays from the common values
  std::uint64_t count_ = 0;
  std::uint64_t common_next_free_ = 0, latest_free_ = 0;
  std::vector<std::uint64_t> next_free_;  // empty while the lanes are alike
  std::uint64_t common_busy_ = 0, common_work_ = 0;
  std::vector<std::uint64_t> busy_, work_;  // per lane, on top of the common counts; empty until needed
  std::uint64_t origin_ = 0;
  trace::TraceLog* log_ = nullptr;
  topology::Unit first_unit_ = 0;
  int level_ = 0;
  timing::Resource resource_ = timing::Resource::dram();
};

}  // namespace treesim::models
