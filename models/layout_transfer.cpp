#include "models/layout_transfer.h"

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

void scatter_tensor(const LayoutTransfer& t, const std::uint8_t* host, const std::vector<Pe*>& pes,
                    std::uint64_t lm_base, std::int32_t pad) {
  const std::size_t eb = t.bound.element_bytes();
  std::uint8_t pad_bytes[4];
  const std::uint32_t pad_bits = static_cast<std::uint32_t>(pad);
  for (int b = 0; b < 4; ++b) pad_bytes[b] = static_cast<std::uint8_t>(pad_bits >> (8 * b));
  const Block& block = t.block;
  layout::for_each_slot(t.bound, [&](std::uint64_t pe, std::uint64_t offset, std::int64_t element) {
    std::uint8_t* dst = pes[pe]->lm() + lm_base + offset;
    if (element < 0)
      std::memcpy(dst, pad_bytes, eb);
    else
      std::memcpy(dst, host + block.full_index(static_cast<std::uint64_t>(element)) * eb, eb);
  });
}

void gather_tensor(const LayoutTransfer& t, const std::vector<Pe*>& pes, std::uint64_t lm_base,
                   std::uint8_t* host) {
  const std::size_t eb = t.bound.element_bytes();
  const std::uint64_t replicas = t.bound.replicas();
  const Block& block = t.block;
  std::uint64_t call = 0;  // for_each_slot visits the replicas of a slot together, replica 0 first
  layout::for_each_slot(t.bound, [&](std::uint64_t pe, std::uint64_t offset, std::int64_t element) {
    if (call++ % replicas != 0 || element < 0) return;
    std::memcpy(host + block.full_index(static_cast<std::uint64_t>(element)) * eb,
                pes[pe]->lm() + lm_base + offset, eb);
  });
}

}  // namespace treesim::models
