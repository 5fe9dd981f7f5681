// Converting a tensor between two layouts (note §4.6: B ∘ A⁻¹): every slot of the destination
// layout takes its element from the nearest copy in the source layout, nearest = deepest lowest
// common ancestor in the tree. Traffic counts each element once per link even when several
// destinations below that link need it (multicast).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/layout/bound_layout.h"
#include "sim/layout/loader_plan.h"

namespace treesim::layout {

struct ConversionPlan {
  std::uint64_t destination_slots = 0;  // element slots of the destination, every replica
  std::uint64_t in_place = 0;           // already holding their element (same PE, address, lane)
  // Copies by the level of their lowest common ancestor: [0] = the board, [i + 1] = a unit of level
  // i; the last entry (the PE level) counts copies inside one PE (another address or lane).
  std::vector<std::uint64_t> copies_by_lca;
  // Per level X (links between X's units and their parents): bytes up (sources towards the common
  // ancestor) and down (towards the destinations), busiest parent ports.
  std::vector<LevelTraffic> levels;

  std::uint64_t copies() const;
  std::uint64_t link_bytes() const;  // Σ over levels of up_sent + down_sent
  bool moves_nothing() const { return in_place == destination_slots; }
};

// @pre same shape, element size and machine; neither has _Time sub-axes (LayoutError E140).
// Padding slots of the destination are zero-filled in place and move nothing.
// @post convert(A, A) moves nothing; every destination slot is in place or counted once in copies_by_lca.
// Elements that move alike (the same source and destination PEs, address and lane offsets) are
// walked once per class; `group_alike = false` walks every element, for tests to compare.
ConversionPlan plan_conversion(const BoundLayout& from, const BoundLayout& to, bool group_alike = true);

}  // namespace treesim::layout
