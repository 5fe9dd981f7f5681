// One target's value (say the unit at the first level) of every element of a bound layout, axis by
// axis. A target's value is a sum over the axes of what each axis's digits give it (the layout's
// parts are per axis), so a table per axis answers it for a whole block at the cost of one add per
// axis, and the last axis's table falls into runs of equal value (a row's elements that go to the
// same unit).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/layout/bound_layout.h"

namespace treesim::layout {

class AxisValues {
 public:
  // Equal values along the last axis: indices [begin, end) all add `value`.
  struct Run {
    std::uint64_t begin = 0, end = 0, value = 0;
  };

  AxisValues(const BoundLayout& layout, int target);

  // What index `i` of axis `axis` adds to the target's value (its distribution parts only).
  std::uint64_t at(std::size_t axis, std::uint64_t i) const { return tables_[axis][i]; }
  // The last axis (the whole shape for rank 0) as runs of equal value.
  const std::vector<Run>& last_axis_runs() const { return runs_; }

 private:
  std::vector<std::vector<std::uint64_t>> tables_;
  std::vector<Run> runs_;
};

}  // namespace treesim::layout
