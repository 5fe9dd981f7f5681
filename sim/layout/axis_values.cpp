#include "sim/layout/axis_values.h"

namespace treesim::layout {

AxisValues::AxisValues(const BoundLayout& layout, int target) {
  const std::vector<std::uint64_t>& shape = layout.shape();
  tables_.resize(shape.size());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    std::vector<std::uint64_t>& table = tables_[d];
    table.assign(shape[d], 0);
    for (std::size_t p = 0; p < layout.distribution_part_count(); ++p) {
      const BoundLayout::Part& part = layout.parts()[p];
      if (part.axis != static_cast<int>(d) || part.target != target) continue;
      for (std::uint64_t i = 0; i < shape[d]; ++i) table[i] += i / part.weight % part.size * part.stride;
    }
  }
  if (shape.empty()) {
    runs_.push_back({0, 1, 0});
    return;
  }
  const std::vector<std::uint64_t>& last = tables_.back();
  for (std::uint64_t i = 0; i < last.size(); ++i) {
    if (runs_.empty() || runs_.back().value != last[i]) runs_.push_back({i, i, last[i]});
    runs_.back().end = i + 1;
  }
}

}  // namespace treesim::layout
