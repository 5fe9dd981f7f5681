#include "models/layout_transfer.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/layout/parse.h"

namespace treesim::models {

std::uint64_t Block::full_index(std::uint64_t i) const {
  if (whole) return i;
  std::uint64_t full = 0;
  for (std::size_t d = shape.size(); d-- > 0;) {
    full += (offset[d] + i % shape[d]) * tensor_strides[d];
    i /= shape[d];
  }
  return full;
}

LayoutTransfer prepare_transfer(const std::string& layout_text, const program::TensorDecl& tensor,
                                const std::vector<std::uint64_t>& offset,
                                const std::vector<std::uint64_t>& shape,
                                const machine::MachineConfig& machine) {
  const std::size_t eb = program::dtype_bytes(tensor.dtype);
  Block block;
  block.shape = shape.empty() ? tensor.shape : shape;
  block.offset = offset.empty() ? std::vector<std::uint64_t>(tensor.shape.size(), 0) : offset;
  if (block.shape.size() != tensor.shape.size())
    throw std::invalid_argument(fmt::format("the block has rank {} but tensor '{}' has rank {}",
                                            block.shape.size(), tensor.name, tensor.shape.size()));
  block.tensor_strides.assign(tensor.shape.size(), 1);
  for (std::size_t d = tensor.shape.size(); d-- > 1;)
    block.tensor_strides[d - 1] = block.tensor_strides[d] * tensor.shape[d];
  for (std::size_t d = 0; d < tensor.shape.size(); ++d) {
    if (block.offset[d] + block.shape[d] > tensor.shape[d])
      throw std::invalid_argument(
          fmt::format("the block at offset {} of shape {} is not inside tensor '{}' of shape {}",
                      layout::shape_string(block.offset), layout::shape_string(block.shape), tensor.name,
                      layout::shape_string(tensor.shape)));
    if (block.offset[d] != 0 || block.shape[d] != tensor.shape[d]) block.whole = false;
  }
  layout::TensorLayout parsed = layout::parse_layout_or_throw(layout_text, machine);
  LayoutTransfer t{layout::bind_or_throw(parsed, block.shape, machine, eb), block, 0, {}, {}};
  layout::require_resident(t.bound);
  t.footprint_bytes = t.bound.footprint_bytes_per_unit();
  t.load = layout::plan_load(t.bound);
  t.gather = layout::plan_gather(t.bound);
  return t;
}

namespace {

// Replica 0 of a placed tensor as runs: f(pe, lm_byte_offset, element, count) for `count`
// consecutive slots holding consecutive elements (element −1: `count` padding slots). Where the
// innermost sub-axis is the LM address of the last tensor axis with stride 1, a run spans it, so
// the host copies rows instead of bytes. Same odometer as layout::for_each_slot.
template <class F>
void for_each_run(const layout::BoundLayout& b, F&& f) {
  const std::size_t rank = b.rank();
  const auto& parts = b.parts();
  std::size_t n = b.distribution_part_count();
  const std::uint64_t eb = b.element_bytes(), words = b.words_per_address();
  const int levels = static_cast<int>(b.level_count());
  if (b.padded_elements() == 0) return;
  std::vector<std::uint64_t> pe_step(n), byte_step(n), lin_step(n), axis_step(n), logical_stride(rank, 1);
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
  std::uint64_t base_pe = 0;
  {
    std::vector<std::uint64_t> values(b.target_count(), 0), units(b.level_count(), 0);
    b.apply_replica(0, values.data(), units);
    for (std::size_t lv = 0; lv < b.level_count(); ++lv)
      base_pe += (values[lv] + units[lv]) * b.pe_weight(lv);
  }
  // The innermost part forms runs when it walks the last axis one element and one slot at a time.
  std::uint64_t run = 1;
  if (n > 0) {
    const auto& last = parts[n - 1];
    if (last.axis == static_cast<int>(rank) - 1 && last.weight == 1 && byte_step[n - 1] == eb) {
      run = last.size;
      --n;
    }
  }
  const std::uint64_t last_dim = rank ? b.shape()[rank - 1] : 1;
  std::vector<std::uint64_t> digit(n, 0), x(rank, 0);
  std::size_t padding_axes = 0;  // axes other than a run's position that are in the pad region
  std::uint64_t pe = base_pe, off = 0, lin = 0;
  for (;;) {
    if (padding_axes) {
      f(pe, off, std::int64_t{-1}, run);
    } else if (rank == 0) {
      f(pe, off, std::int64_t{0}, std::uint64_t{1});
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

// PE-id offsets of every replica (replica 0 included), as layout::for_each_slot computes them.
std::vector<std::uint64_t> replica_offsets(const layout::BoundLayout& b) {
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

}  // namespace

void scatter_tensor(const LayoutTransfer& t, const std::uint8_t* host, const std::vector<Pe*>& pes,
                    std::uint64_t lm_base, std::int32_t pad) {
  const layout::BoundLayout& b = t.bound;
  const std::size_t eb = b.element_bytes();
  std::uint8_t pad_bytes[4];
  const std::uint32_t pad_bits = static_cast<std::uint32_t>(pad);
  for (int i = 0; i < 4; ++i) pad_bytes[i] = static_cast<std::uint8_t>(pad_bits >> (8 * i));
  const Block& block = t.block;
  const std::uint64_t row = block.shape.empty() ? 1 : block.shape.back();
  // Replica 0, run by run; remember which PEs it filled and how many bytes.
  std::vector<std::uint64_t> filled(pes.size(), 0);
  for_each_run(b, [&](std::uint64_t pe, std::uint64_t offset, std::int64_t element, std::uint64_t count) {
    std::uint8_t* dst = pes[pe]->lm() + lm_base + offset;
    filled[pe] += count * eb;
    if (element < 0) {
      for (std::uint64_t i = 0; i < count; ++i) std::memcpy(dst + i * eb, pad_bytes, eb);
      return;
    }
    // A run never leaves a row of the block, so it is contiguous in the host tensor too.
    auto e = static_cast<std::uint64_t>(element);
    if (block.whole || e % row + count <= row) {
      std::memcpy(dst, host + block.full_index(e) * eb, count * eb);
    } else {
      for (std::uint64_t i = 0; i < count; ++i)
        std::memcpy(dst + i * eb, host + block.full_index(e + i) * eb, eb);
    }
  });
  if (b.replicas() == 1) return;
  // Every replica is replica 0 moved to other PEs at the same LM offsets. Where replica 0 fills its
  // PEs' footprints densely, copy footprints; otherwise copy slot by slot.
  const std::vector<std::uint64_t> shift = replica_offsets(b);
  bool dense = true;
  for (std::uint64_t pe = 0; pe < pes.size(); ++pe)
    dense = dense && (filled[pe] == 0 || filled[pe] == t.footprint_bytes);
  if (dense) {
    for (std::uint64_t pe = 0; pe < pes.size(); ++pe) {
      if (filled[pe] == 0) continue;
      const std::uint8_t* src = pes[pe]->lm() + lm_base;
      for (std::uint64_t r = 1; r < shift.size(); ++r)
        std::memcpy(pes[pe + shift[r] - shift[0]]->lm() + lm_base, src, t.footprint_bytes);
    }
    return;
  }
  for_each_run(b, [&](std::uint64_t pe, std::uint64_t offset, std::int64_t, std::uint64_t count) {
    const std::uint8_t* src = pes[pe]->lm() + lm_base + offset;
    for (std::uint64_t r = 1; r < shift.size(); ++r)
      std::memcpy(pes[pe + shift[r] - shift[0]]->lm() + lm_base + offset, src, count * eb);
  });
}

void gather_tensor(const LayoutTransfer& t, const std::vector<Pe*>& pes, std::uint64_t lm_base,
                   std::uint8_t* host) {
  const std::size_t eb = t.bound.element_bytes();
  const Block& block = t.block;
  const std::uint64_t row = block.shape.empty() ? 1 : block.shape.back();
  for_each_run(t.bound,
               [&](std::uint64_t pe, std::uint64_t offset, std::int64_t element, std::uint64_t count) {
                 if (element < 0) return;
                 const std::uint8_t* src = pes[pe]->lm() + lm_base + offset;
                 auto e = static_cast<std::uint64_t>(element);
                 if (block.whole || e % row + count <= row) {
                   std::memcpy(host + block.full_index(e) * eb, src, count * eb);
                 } else {
                   for (std::uint64_t i = 0; i < count; ++i)
                     std::memcpy(host + block.full_index(e + i) * eb, src + i * eb, eb);
                 }
               });
}

}  // namespace treesim::models
