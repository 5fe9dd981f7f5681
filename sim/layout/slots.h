// Every filled LM slot of a placed tensor, for the loader that moves real bytes. Templates so the
// callback inlines: the walk is an odometer over the layout's digits in row-major order of the
// padded index, where each digit step adds a constant to the PE id and to the byte offset (the maps
// are linear per target), so no division happens per slot.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/layout/bound_layout.h"

namespace treesim::layout {

// What a run's `element` counts: by default the row-major index in the layout's own shape. A loader
// that moves a block of a larger tensor gives the tensor's strides and the index of the block's
// origin, so that elements come out as indices into the whole tensor with no division per run.
struct ElementIndex {
  std::vector<std::uint64_t> strides;  // per axis of the layout's shape; empty: row-major
  std::uint64_t origin = 0;
};

// A slice of a walk: the outermost digit of its odometer from `lo` up to (not including) `hi`.
// Slices with disjoint ranges visit disjoint runs, and together the whole walk, so that loaders
// can walk one layout on several threads. outer_digits(b) is the digit's range.
struct OuterSlice {
  std::uint64_t lo = 0, hi = UINT64_MAX;
};

// Whether the innermost part walks the last axis one element and one slot at a time, so that it
// forms for_each_run's runs instead of being a digit of its odometer.
inline bool innermost_part_forms_runs(const BoundLayout& b) {
  const std::size_t n = b.distribution_part_count();
  if (n == 0 || b.rank() == 0) return false;
  const auto& last = b.parts()[n - 1];
  const std::uint64_t eb = b.element_bytes(), words = b.words_per_address();
  const std::uint64_t byte_step = last.target == b.addr_target()   ? last.stride * words * eb
                                  : last.target == b.lane_target() ? last.stride * eb
                                                                   : 0;
  return last.axis == static_cast<int>(b.rank()) - 1 && last.weight == 1 && byte_step == eb;
}

// The values of for_each_run's outermost digit: slices split [0, outer_digits(b)).
inline std::uint64_t outer_digits(const BoundLayout& b) {
  const std::size_t n = b.distribution_part_count() - (innermost_part_forms_runs(b) ? 1 : 0);
  return n > 0 ? b.parts()[0].size : 1;
}

// Replica 0 of a placed tensor as runs: f(pe_global_id, lm_byte_offset, element, count) for `count`
// consecutive slots holding consecutive elements (element −1: `count` padding slots). Where the
// innermost sub-axis is the LM address of the last tensor axis with stride 1, a run spans it, so a
// loader copies rows instead of bytes; a run never leaves a row of the shape. Order: padded index
// row-major. With `slice`, only the runs whose outermost odometer digit lies in it.
// @pre no _Time sub-axes (LayoutError E140: such a layout is not resident); `index.strides` empty
// or one per axis.
template <class F>
void for_each_run(const BoundLayout& b, F&& f, const ElementIndex& index = {}, OuterSlice slice = {}) {
  require_resident(b);
  const std::size_t rank = b.rank();
  const auto& parts = b.parts();
  std::size_t n = b.distribution_part_count();
  const std::uint64_t eb = b.element_bytes(), words = b.words_per_address();
  const int levels = static_cast<int>(b.level_count());
  if (b.padded_elements() == 0) return;
  std::vector<std::uint64_t> pe_step(n), byte_step(n), lin_step(n), axis_step(n), logical_stride(rank, 1);
  for (std::size_t d = rank; d-- > 1;) logical_stride[d - 1] = logical_stride[d] * b.shape()[d];
  if (!index.strides.empty()) logical_stride = index.strides;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& p = parts[i];
    pe_step[i] = p.target < levels ? p.stride * b.pe_weight(static_cast<std::size_t>(p.target)) : 0;
    byte_step[i] = p.target == b.addr_target()   ? p.stride * words * eb
                   : p.target == b.lane_target() ? p.stride * eb
                                                 : 0;
    axis_step[i] = p.weight;
    lin_step[i] = p.weight * logical_stride[static_cast<std::size_t>(p.axis)];
  }
  std::uint64_t base_pe = 0;
  {
    std::vector<std::uint64_t> values(b.target_count(), 0), units(b.level_count(), 0);
    b.apply_replica(0, values.data(), units);
    for (std::size_t lv = 0; lv < b.level_count(); ++lv)
      base_pe += (values[lv] + units[lv]) * b.pe_weight(lv);
  }
  // The innermost part forms runs when it walks the last axis one element and one slot at a time.
  std::uint64_t run = 1;
  if (innermost_part_forms_runs(b)) {
    run = parts[n - 1].size;
    --n;
  }
  const std::uint64_t last_dim = rank ? b.shape()[rank - 1] : 1;
  std::vector<std::uint64_t> digit(n, 0), x(rank, 0);
  // The slice of the outermost digit (the whole walk when there is no digit: one run).
  const std::uint64_t outer_size = n > 0 ? parts[0].size : 1;
  const std::uint64_t lo = std::min(slice.lo, outer_size), hi = std::min(slice.hi, outer_size);
  if (lo >= hi) return;
  std::uint64_t pe = base_pe, off = 0, lin = index.origin;
  if (n > 0 && lo > 0) {
    digit[0] = lo;
    pe += lo * pe_step[0], off += lo * byte_step[0], lin += lo * lin_step[0];
    x[static_cast<std::size_t>(parts[0].axis)] += lo * axis_step[0];
  }
  if (n > 0 && b.padded_elements() == b.logical_elements()) {
    // No padding anywhere: every run is whole, so the innermost digit sweeps in a plain loop and
    // only its carries go through the odometer (loads of K-split operands are mostly 8–32-byte runs).
    const std::size_t in = n - 1;
    for (;;) {
      std::uint64_t p = pe, o = off, l = lin;
      for (std::uint64_t j = in == 0 ? lo : 0; j < (in == 0 ? hi : parts[in].size);
           ++j, p += pe_step[in], o += byte_step[in], l += lin_step[in])
        f(p, o, static_cast<std::int64_t>(l), run);
      if (in == 0) return;
      std::size_t k = in;
      while (k-- > 0) {
        if (++digit[k] < (k == 0 ? hi : parts[k].size)) {
          pe += pe_step[k], off += byte_step[k], lin += lin_step[k];
          break;
        }
        const std::uint64_t back = parts[k].size - 1;
        digit[k] = 0;
        pe -= back * pe_step[k], off -= back * byte_step[k], lin -= back * lin_step[k];
      }
      if (k == static_cast<std::size_t>(-1)) return;
    }
  }
  // Axes other than a run's position that are in the pad region.
  std::size_t padding_axes = 0;
  for (std::size_t d = 0; d < rank; ++d)
    padding_axes += x[d] >= b.shape()[d] && !(run > 1 && d == rank - 1) ? 1 : 0;
  for (;;) {
    if (padding_axes) {
      f(pe, off, std::int64_t{-1}, run);
    } else if (rank == 0) {
      f(pe, off, static_cast<std::int64_t>(lin), std::uint64_t{1});
    } else {
      const std::uint64_t x0 = x[rank - 1];
      const std::uint64_t logical = x0 >= last_dim ? 0 : std::min(run, last_dim - x0);
      if (logical) f(pe, off, static_cast<std::int64_t>(lin), logical);
      if (logical < run) f(pe, off + logical * eb, std::int64_t{-1}, run - logical);
    }
    std::size_t k = n;
    while (k-- > 0) {
      const auto& p = parts[k];
      const std::size_t d = static_cast<std::size_t>(p.axis);
      const bool was_pad = x[d] >= b.shape()[d] && !(run > 1 && d == rank - 1);
      if (k == 0 && digit[0] + 1 >= hi) return;  // the slice's last outer digit is done
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
      const bool is_pad = x[d] >= b.shape()[d] && !(run > 1 && d == rank - 1);
      padding_axes = padding_axes + (is_pad ? 1 : 0) - (was_pad ? 1 : 0);
      if (digit[k] != 0) break;
    }
    if (k == static_cast<std::size_t>(-1)) return;
  }
}

// PE-id offset of every replica (replica 0 included): broadcast digits times their strides and
// the omitted levels' units, weighted by the PE-id weight of their level.
inline std::vector<std::uint64_t> replica_pe_offsets(const BoundLayout& b) {
  std::vector<std::uint64_t> out(b.replicas(), 0);
  std::vector<std::uint64_t> values(b.target_count()), units(b.level_count());
  for (std::uint64_t r = 0; r < b.replicas(); ++r) {
    std::fill(values.begin(), values.end(), 0);
    std::fill(units.begin(), units.end(), 0);
    b.apply_replica(r, values.data(), units);
    for (std::size_t lv = 0; lv < b.level_count(); ++lv) out[r] += (values[lv] + units[lv]) * b.pe_weight(lv);
  }
  return out;
}

// Calls f(pe_global_id, lm_byte_offset, element) for every slot of every replica, where
// lm_byte_offset = (addr × words_per_address + lane) × element_bytes and element is the row-major
// linear index of the logical element, or -1 for a padding slot (the loader writes zeros there).
// Order: padded index row-major, replicas innermost.
// @pre no _Time sub-axes (LayoutError E140: such a layout is not resident).
template <class F>
void for_each_slot(const BoundLayout& b, F&& f) {
  const std::vector<std::uint64_t> shift = replica_pe_offsets(b);
  const std::uint64_t eb = b.element_bytes();
  for_each_run(b, [&](std::uint64_t pe, std::uint64_t offset, std::int64_t element, std::uint64_t count) {
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::int64_t e = element < 0 ? -1 : element + static_cast<std::int64_t>(i);
      for (std::uint64_t r : shift) f(pe - shift[0] + r, offset + i * eb, e);
    }
  });
}

}  // namespace treesim::layout
