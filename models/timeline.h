// The busy timeline of one resource (a link port, a PE unit, DRAM's port): when it is next free
// and what it did in the current run. Timestamp arithmetic, no process and no clock (gem5 and
// VCML's timers schedule by timestamps the same way). Its owner module names it in the trace.
#pragma once

#include <cstdint>
#include <stdexcept>

#include "sim/trace/trace_log.h"

namespace treesim::models {

class Timeline {
 public:
  // How a hold is traced: as this resource's own, as every unit of its level alike (lock-step
  // units the caller has checked do equal work; one of them records it), or not at all (another
  // unit recorded it for the level).
  enum class Trace { kOwn, kLevel, kNone };

  std::uint64_t next_free() const { return next_free_; }
  std::uint64_t busy_cycles() const { return busy_; }
  std::uint64_t work() const { return work_; }  // bytes or items, this run

  // Holds the resource for `cycles` from `at`, moving `work` items.
  void hold(std::uint64_t at, std::uint64_t cycles, std::uint64_t work, Trace how = Trace::kOwn) {
    if (at < next_free_) throw std::logic_error("a resource was held twice at once");
    next_free_ = at + cycles;
    busy_ += cycles;
    work_ += work;
    if (!log_ || how == Trace::kNone) return;
    if (how == Trace::kOwn)
      log_->hold(unit_, resource_, at - origin_, at - origin_ + cycles, work);
    else
      log_->hold_level(level_, resource_, at - origin_, at - origin_ + cycles, work);
  }

  // Stops logging (the log is gone); the counters stay.
  void detach_log() { log_ = nullptr; }

  // A new run from cycle `origin`: counters restart; holds are logged (if `log`) as resource
  // `resource` of `unit`, a unit of `level`.
  void start_run(std::uint64_t origin, trace::TraceLog* log = nullptr, topology::Unit unit = 0, int level = 0,
                 trace::Resource resource = trace::Resource::kDram) {
    busy_ = work_ = 0;
    origin_ = origin;
    log_ = log;
    unit_ = unit;
    level_ = level;
    resource_ = resource;
    if (log_) log_->declare(level, resource);
  }

 private:
  std::uint64_t next_free_ = 0;
  std::uint64_t busy_ = 0, work_ = 0;
  std::uint64_t origin_ = 0;
  trace::TraceLog* log_ = nullptr;
  topology::Unit unit_ = 0;
  int level_ = 0;
  trace::Resource resource_ = trace::Resource::kDram;
};

}  // namespace treesim::models
