#include "models/layout_transfer.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/layout/parse.h"
#include "sim/layout/slots.h"

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

LayoutTransfer prepare_transfer(const layout::TensorLayout& parsed, const program::TensorDecl& tensor,
                                const std::vector<std::uint64_t>& offset,
                                const std::vector<std::uint64_t>& shape,
                                const machine::MachineConfig& machine) {
  const std::size_t eb = core::dtype_bytes(tensor.dtype);
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
  LayoutTransfer t{layout::bind_or_throw(parsed, block.shape, machine, eb), block, 0, {}, {}};
  layout::require_resident(t.bound);
  t.footprint_bytes = t.bound.footprint_bytes_per_unit();
  t.load = layout::plan_load(t.bound);
  t.gather = layout::plan_gather(t.bound);
  return t;
}

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
  layout::for_each_run(
      b, [&](std::uint64_t pe, std::uint64_t offset, std::int64_t element, std::uint64_t count) {
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
  const std::vector<std::uint64_t> shift = layout::replica_pe_offsets(b);
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
  layout::for_each_run(b, [&](std::uint64_t pe, std::uint64_t offset, std::int64_t, std::uint64_t count) {
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
  layout::for_each_run(
      t.bound, [&](std::uint64_t pe, std::uint64_t offset, std::int64_t element, std::uint64_t count) {
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
