// The busy timeline of one resource (a link port, a PE unit, DRAM's port): when it is next free
// and what it did in the current run. Timestamp arithmetic, no process and no clock (gem5 and
// VCML's timers schedule by timestamps the same way). Its owner module records its trace.
#pragma once

#include <cstdint>
#include <stdexcept>

#include "sim/trace/vcd_trace.h"

namespace treesim::models {

class Timeline {
 public:
  std::uint64_t next_free() const { return next_free_; }
  std::uint64_t busy_cycles() const { return busy_; }
  std::uint64_t work() const { return work_; }  // bytes or items, this run

  // Holds the resource for `cycles` from `at`, moving `work` items.
  void hold(std::uint64_t at, std::uint64_t cycles, std::uint64_t work) {
    if (at < next_free_) throw std::logic_error("a resource was held twice at once");
    next_free_ = at + cycles;
    busy_ += cycles;
    work_ += work;
    if (trace_ && cycles > 0) {  // a hold of no time leaves no mark
      trace_->change(at - origin_, busy_signal_, 1);
      trace_->change(at - origin_ + cycles, busy_signal_, 0);
      if (work_signal_ != busy_signal_) {
        trace_->change(at - origin_, work_signal_, work);
        trace_->change(at - origin_ + cycles, work_signal_, 0);
      }
    }
  }

  // A new run from cycle `origin`: counters restart, the trace (if any) goes to `trace`.
  void start_run(std::uint64_t origin, trace::VcdTrace* trace = nullptr, trace::VcdTrace::SignalId busy = 0,
                 trace::VcdTrace::SignalId work = 0) {
    busy_ = work_ = 0;
    origin_ = origin;
    trace_ = trace;
    busy_signal_ = busy;
    work_signal_ = work;
  }

 private:
  std::uint64_t next_free_ = 0;
  std::uint64_t busy_ = 0, work_ = 0;
  std::uint64_t origin_ = 0;
  trace::VcdTrace* trace_ = nullptr;
  trace::VcdTrace::SignalId busy_signal_ = 0, work_signal_ = 0;
};

}  // namespace treesim::models
