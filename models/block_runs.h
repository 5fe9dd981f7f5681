// A transfer's block walked in runs that share one target's value (the unit at a level, say): row
// by row over its last axis, each row cut where the target's value changes. A block's row is
// contiguous in its tensor, so a run is a contiguous range of the tensor's elements.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/layout/axis_values.h"
#include "sim/program/checked_program.h"

namespace treesim::models {

// fn(first, count, value): the tensor's elements [first, first + count) all have `value` at
// `target` (replica 0's: broadcast parts are not counted).
template <class Fn>
void for_each_value_run(const program::Transfer& t, int target, Fn&& fn) {
  const layout::BoundLayout& b = t.bound;
  const std::vector<std::uint64_t>& shape = b.shape();
  const std::uint64_t elements = t.block.elements();
  if (elements == 0) return;
  const layout::AxisValues values(b, target);
  const std::size_t lead = shape.empty() ? 0 : shape.size() - 1;
  const std::uint64_t row = shape.empty() ? 1 : shape.back();
  std::vector<std::uint64_t> index(lead, 0);
  for (std::uint64_t first = 0; first < elements; first += row) {
    std::uint64_t base = 0;
    for (std::size_t d = 0; d < lead; ++d) base += values.at(d, index[d]);
    const std::uint64_t full = t.block.full_index(first);
    for (const layout::AxisValues::Run& r : values.last_axis_runs())
      fn(full + r.begin, r.end - r.begin, base + r.value);
    for (std::size_t d = lead; d-- > 0;) {  // the next row, row-major
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
}

}  // namespace treesim::models
