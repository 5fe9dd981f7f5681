// Every filled LM slot of a placed tensor, for the loader that moves real bytes. A template so the
// callback inlines: the walk is an odometer over the layout's digits in row-major order of the
// padded index, where each digit step adds a constant to the PE id and to the byte offset (the maps
// are linear per target), so no division happens per slot.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/layout/bound_layout.h"

namespace treesim::layout {

// Calls f(pe_global_id, lm_byte_offset, element) for every slot of every replica, where
// lm_byte_offset = (addr × words_per_address + lane) × element_bytes and element is the row-major
// linear index of the logical element, or -1 for a padding slot (the loader writes zeros there).
// Order: padded index row-major, replicas innermost.
// @pre no _Time sub-axes (LayoutError E140: such a layout is not resident).
template <class F>
void for_each_slot(const BoundLayout& b, F&& f) {
  require_resident(b);
  const std::size_t rank = b.rank();
  const auto& parts = b.parts();
  const std::size_t n = b.distribution_part_count();
  const std::uint64_t eb = b.element_bytes(), words = b.words_per_address();
  const int levels = static_cast<int>(b.level_count());

  // Per distribution part: what one digit step adds to the PE id, the byte offset, the axis
  // coordinate and the logical linear index.
  std::vector<std::uint64_t> pe_step(n), byte_step(n), lin_step(n), axis_step(n);
  std::vector<std::uint64_t> logical_stride(rank, 1);
  for (std::size_t d = rank; d-- > 1;) logical_stride[d - 1] = logical_stride[d] * b.shape()[d];
  for (std::size_t i = 0; i < n; ++i) {
    const auto& p = parts[i];
    pe_step[i] = p.target < levels ? p.stride * b.pe_weight(static_cast<std::size_t>(p.target)) : 0;
    byte_step[i] = p.target == b.addr_target()   ? p.stride * words * eb
                   : p.target == b.lane_target() ? p.stride * eb
                                                 : 0;
    axis_step[i] = p.weight;
    lin_step[i] = p.weight * logical_stride[static_cast<std::size_t>(p.axis)];
  }

  // PE-id offset of every replica: broadcast digits times their strides, omitted levels' units.
  std::vector<std::uint64_t> replica_pe(b.replicas(), 0);
  {
    std::vector<std::uint64_t> values(b.target_count()), units(b.level_count());
    for (std::uint64_t r = 0; r < b.replicas(); ++r) {
      std::fill(values.begin(), values.end(), 0);
      std::fill(units.begin(), units.end(), 0);
      b.apply_replica(r, values.data(), units);
      std::uint64_t pe = 0;
      for (std::size_t lv = 0; lv < b.level_count(); ++lv) pe += (values[lv] + units[lv]) * b.pe_weight(lv);
      replica_pe[r] = pe;
    }
  }

  if (b.padded_elements() == 0) return;
  std::vector<std::uint64_t> digit(n, 0), x(rank, 0);
  std::size_t padding_axes = 0;  // axes whose coordinate is in the pad region
  std::uint64_t pe = 0, off = 0, lin = 0;
  const std::uint64_t* rpe = replica_pe.data();
  const std::size_t replicas = replica_pe.size();
  for (;;) {
    const std::int64_t element = padding_axes ? -1 : static_cast<std::int64_t>(lin);
    for (std::size_t r = 0; r < replicas; ++r) f(pe + rpe[r], off, element);
    std::size_t k = n;
    while (k-- > 0) {
      const auto& p = parts[k];
      const std::size_t d = static_cast<std::size_t>(p.axis);
      const bool was_pad = x[d] >= b.shape()[d];
      if (++digit[k] < p.size) {
        pe += pe_step[k];
        off += byte_step[k];
        lin += lin_step[k];
        x[d] += axis_step[k];
      } else {
        const std::uint64_t back = p.size - 1;
        digit[k] = 0;
        pe -= back * pe_step[k];
        off -= back * byte_step[k];
        lin -= back * lin_step[k];
        x[d] -= back * axis_step[k];
      }
      const bool is_pad = x[d] >= b.shape()[d];
      padding_axes = padding_axes + (is_pad ? 1 : 0) - (was_pad ? 1 : 0);
      if (digit[k] != 0) break;
    }
    if (k == static_cast<std::size_t>(-1)) return;  // the odometer wrapped: every slot visited
  }
}

}  // namespace treesim::layout
