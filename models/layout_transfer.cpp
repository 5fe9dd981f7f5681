#include "models/layout_transfer.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "sim/layout/slots.h"

namespace treesim::models {

void scatter_block(const program::Transfer& t, const std::uint8_t* host, const std::vector<Pe*>& pes,
                   std::uint64_t lm_base, std::int32_t pad) {
  const layout::BoundLayout& b = t.bound;
  const std::size_t eb = b.element_bytes();
  std::uint8_t pad_bytes[4];
  const std::uint32_t pad_bits = static_cast<std::uint32_t>(pad);
  for (int i = 0; i < 4; ++i) pad_bytes[i] = static_cast<std::uint8_t>(pad_bits >> (8 * i));
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
        std::memcpy(dst, host + static_cast<std::uint64_t>(element) * eb, count * eb);
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

void gather_block(const program::Transfer& t, const std::vector<Pe*>& pes, std::uint64_t lm_base,
                  std::uint8_t* host) {
  const std::size_t eb = t.bound.element_bytes();
  layout::for_each_run(
      t.bound, [&](std::uint64_t pe, std::uint64_t offset, std::int64_t element, std::uint64_t count) {
        if (element < 0) return;
        const std::uint8_t* src = pes[pe]->lm() + lm_base + offset;
        std::memcpy(host + static_cast<std::uint64_t>(element) * eb, src, count * eb);
      });
}

}  // namespace treesim::models
