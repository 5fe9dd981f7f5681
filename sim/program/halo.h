// A windowed load expanded at the PEs (instruction.h: Load::halo): instead of the loader's im2col,
// which sends every window slot down the tree (a 3×3 window's input bytes nine times over), each
// unit receives its halo patch — the distinct input elements the window slots below it read, once —
// and every PE's copy unit makes its slots from its own patch. Padding is made at the PE.
//
//   need(U)                    = the distinct tensor elements the slots stored below unit U read
//   down_delivered_bytes(X)    = Σ_{U at X} |need(U)| × bytes
//   down_sent_bytes(X)         = Σ_{parents P} |need(P)| × bytes   (a parent's port carries its need once)
//   busiest_down_port_bytes(X) = max_P |need(P)| × bytes
//   dram_read_bytes            = |need(board)| × bytes            (each distinct element once, as im2col)
//   transfers                  = Σ_X Σ_P (distinct non-empty needs among P's children)
// The same definitions as loader_plan.h's with need() counted in tensor elements, not slots.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/layout/bound_layout.h"
#include "sim/layout/loader_plan.h"
#include "sim/layout/port_traffic.h"
#include "sim/layout/unit_view.h"
#include "sim/program/instruction.h"
#include "sim/program/window.h"

namespace treesim::program {

struct HaloTraffic {
  layout::TrafficPlan plan;
  layout::PortTraffic ports;
  std::uint64_t largest_patch = 0;  // elements of the largest PE patch (the LM its staging needs)
  std::uint64_t pes = 0;            // PEs with a non-empty patch
};

// The traffic of the block [offset, offset + bound.shape()) of the window's matrix placed by
// `bound` with the windows expanded at the PEs.
HaloTraffic halo_traffic(const Window& w, const std::vector<std::uint64_t>& tensor,
                         const std::vector<std::uint64_t>& offset, const layout::BoundLayout& bound);

// Contiguous index intervals [lo, lo + n) of a unit's axis coordinates below `limit` (its padding
// slots left out).
std::vector<std::pair<std::uint64_t, std::uint64_t>> held_intervals(const std::vector<layout::IndexRun>& runs,
                                                                    std::uint64_t limit);

// Sorted, disjoint, maximal runs covering `runs` (which it consumes: they are its room).
std::vector<ElementRun> merge_runs(std::vector<ElementRun>& runs);

// Sorted, disjoint, maximal runs of the elements in `e` (reordered; repeats once): marked in `seen`
// (scratch) over their range where that is not much larger than they are, else sorted.
std::vector<ElementRun> distinct_runs(std::vector<std::uint64_t>& e, std::vector<std::uint8_t>& seen);

// Orders units' views by their axes' index runs: PEs holding the same rows and columns (copies along
// a level the layout does not use) read the same elements, so their needs are worked out once.
struct UnitAxesLess {
  bool operator()(const std::vector<std::vector<layout::IndexRun>>& a,
                  const std::vector<std::vector<layout::IndexRun>>& b) const;
};

// Calls f(pe, view) for every PE that holds a slot of the layout, PEs numbered row-major over the
// levels' fanouts, root first.
template <typename F>
void for_each_used_pe(const layout::BoundLayout& b, F&& f) {
  const std::size_t levels = b.level_count();
  std::vector<std::uint64_t> coords(levels, 0);
  for (std::uint64_t pe = 0, pes = b.pe_count(); pe < pes; ++pe) {
    for (std::size_t l = levels, rest = pe; l-- > 0;) {
      coords[l] = rest % b.fanout(l);
      rest /= b.fanout(l);
    }
    const layout::UnitView v = layout::unit_view(b, coords);
    if (v.used) f(pe, v);
  }
}

// The traffic of a load whose PE p (row-major over the layout's fanouts, root first) needs the
// tensor elements pe_needs[p] (sorted, disjoint runs): need(U) is the union of its PEs', as above.
HaloTraffic needs_traffic(std::vector<std::vector<ElementRun>> pe_needs, const layout::BoundLayout& b);

}  // namespace treesim::program
