#include "models/layout_transfer.h"

#include <cstring>

#include "sim/layout/parse.h"
#include "sim/layout/slots.h"

namespace treesim::models {

LayoutTransfer prepare_transfer(const std::string& layout_text, const program::TensorDecl& tensor,
                                const machine::MachineConfig& machine) {
  const std::size_t eb = program::dtype_bytes(tensor.dtype);
  layout::TensorLayout parsed = layout::parse_layout_or_throw(layout_text, machine);
  LayoutTransfer t{layout::bind_or_throw(parsed, tensor.shape, machine, eb), 0, {}, {}};
  layout::require_resident(t.bound);
  t.footprint_bytes = t.bound.footprint_bytes_per_unit();
  t.load = layout::plan_load(t.bound);
  t.gather = layout::plan_gather(t.bound);
  return t;
}

void scatter_tensor(const LayoutTransfer& t, const std::uint8_t* host, const std::vector<Pe*>& pes,
                    std::uint64_t lm_base) {
  const std::size_t eb = t.bound.element_bytes();
  layout::for_each_slot(t.bound, [&](std::uint64_t pe, std::uint64_t offset, std::int64_t element) {
    std::uint8_t* dst = pes[pe]->lm() + lm_base + offset;
    if (element < 0)
      std::memset(dst, 0, eb);
    else
      std::memcpy(dst, host + static_cast<std::uint64_t>(element) * eb, eb);
  });
}

void gather_tensor(const LayoutTransfer& t, const std::vector<Pe*>& pes, std::uint64_t lm_base,
                   std::uint8_t* host) {
  const std::size_t eb = t.bound.element_bytes();
  const std::uint64_t replicas = t.bound.replicas();
  std::uint64_t call = 0;  // for_each_slot visits the replicas of a slot together, replica 0 first
  layout::for_each_slot(t.bound, [&](std::uint64_t pe, std::uint64_t offset, std::int64_t element) {
    if (call++ % replicas != 0 || element < 0) return;
    std::memcpy(host + static_cast<std::uint64_t>(element) * eb, pes[pe]->lm() + lm_base + offset, eb);
  });
}

}  // namespace treesim::models
