#include "models/layout_transfer.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "sim/layout/slots.h"

namespace treesim::models {
namespace {

// Where the runs' elements point in `host`: the block itself (row-major), or with `tensor` the whole
// tensor the block lies in.
layout::ElementIndex element_index(const program::Block* tensor) {
  layout::ElementIndex index;
  if (!tensor || tensor->whole) return index;
  index.strides = tensor->tensor_strides;
  index.origin = tensor->full_index(0);
  return index;
}

}  // namespace

void scatter_block(const program::Transfer& t, const std::uint8_t* host, const std::vector<Pe*>& pes,
                   std::uint64_t lm_base, std::int32_t pad, const program::Block* tensor,
                   LmReplicas* shared) {
  const layout::BoundLayout& b = t.bound;
  const std::size_t eb = b.element_bytes();
  std::uint8_t pad_bytes[4];
  const std::uint32_t pad_bits = static_cast<std::uint32_t>(pad);
  for (int i = 0; i < 4; ++i) pad_bytes[i] = static_cast<std::uint8_t>(pad_bits >> (8 * i));
  const std::vector<std::uint64_t> shift = layout::replica_pe_offsets(b);
  if (shared && shared->overlaps(lm_base, lm_base + t.footprint_bytes)) {
    // Which PEs the load rewrites whole (replica 0's PEs that it fills densely, and their
    // replicas): what was shared in them need not be copied first.
    std::vector<std::uint64_t> fill(pes.size(), 0);
    layout::for_each_run(b, [&](std::uint64_t pe, std::uint64_t, std::int64_t, std::uint64_t count) {
      fill[pe] += count * eb;
    });
    std::vector<bool> covered(pes.size(), false);
    bool all_dense = true;
    for (std::uint64_t pe = 0; pe < pes.size(); ++pe)
      all_dense = all_dense && (fill[pe] == 0 || fill[pe] == t.footprint_bytes);
    for (std::uint64_t pe = 0; pe < pes.size() && all_dense; ++pe)
      for (std::uint64_t r = 0; r < shift.size() && fill[pe] > 0; ++r)
        covered[pe + shift[r] - shift[0]] = true;
    shared->overwrite(lm_base, lm_base + t.footprint_bytes, covered, pes);
  }
  // Replica 0, run by run; remember which PEs it filled and how many bytes.
  std::vector<std::uint64_t> filled(pes.size(), 0);
  layout::for_each_run(
      b,
      [&](std::uint64_t pe, std::uint64_t offset, std::int64_t element, std::uint64_t count) {
        std::uint8_t* dst = pes[pe]->lm() + lm_base + offset;
        filled[pe] += count * eb;
        if (element < 0) {
          for (std::uint64_t i = 0; i < count; ++i) std::memcpy(dst + i * eb, pad_bytes, eb);
          return;
        }
        std::memcpy(dst, host + static_cast<std::uint64_t>(element) * eb, count * eb);
      },
      element_index(tensor));
  if (b.replicas() == 1) return;
  // Every replica is replica 0 moved to other PEs at the same LM offsets. Where replica 0 fills its
  // PEs' footprints densely, copy footprints; otherwise copy slot by slot.
  bool dense = true;
  for (std::uint64_t pe = 0; pe < pes.size(); ++pe)
    dense = dense && (filled[pe] == 0 || filled[pe] == t.footprint_bytes);
  if (dense && shared) {
    std::vector<std::uint32_t> source(pes.size());
    for (std::uint64_t pe = 0; pe < pes.size(); ++pe) source[pe] = static_cast<std::uint32_t>(pe);
    for (std::uint64_t pe = 0; pe < pes.size(); ++pe)
      for (std::uint64_t r = 1; r < shift.size() && filled[pe] > 0; ++r)
        source[pe + shift[r] - shift[0]] = static_cast<std::uint32_t>(pe);
    shared->add(lm_base, lm_base + t.footprint_bytes, std::move(source));
    return;
  }
  if (dense) {
    for (std::uint64_t pe = 0; pe < pes.size(); ++pe) {
      if (filled[pe] == 0) continue;
      const std::uint8_t* src = pes[pe]->lm() + lm_base;
      for (std::uint64_t r = 1; r < shift.size(); ++r)
        std::memcpy(pes[pe + shift[r] - shift[0]]->lm() + lm_base, src, t.footprint_bytes);
    }
    return;
  }
  layout::for_each_run(b, [&](std::uint64_t pe, std::uint64_t offset, std::int64_t, std::uint64_t count) {
    const std::uint8_t* src = pes[pe]->lm() + lm_base + offset;
    for (std::uint64_t r = 1; r < shift.size(); ++r)
      std::memcpy(pes[pe + shift[r] - shift[0]]->lm() + lm_base + offset, src, count * eb);
  });
}

void gather_block(const program::Transfer& t, const std::vector<Pe*>& pes, std::uint64_t lm_base,
                  std::uint8_t* host, const program::Block* tensor) {
  const std::size_t eb = t.bound.element_bytes();
  layout::for_each_run(
      t.bound,
      [&](std::uint64_t pe, std::uint64_t offset, std::int64_t element, std::uint64_t count) {
        if (element < 0) return;
        std::memcpy(host + static_cast<std::uint64_t>(element) * eb, pes[pe]->lm() + lm_base + offset,
                    count * eb);
      },
      element_index(tensor));
}

}  // namespace treesim::models
