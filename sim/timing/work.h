// The one counter struct: what an instruction or a run moved and computed. The modules count into
// it per instruction, a run sums it with +=, the roofline and the energy read it, and the report
// prints it. The PE units' work is `items`, one counter per datapath (pe_units.h), so a new unit
// or datapath is a row there, not a field here.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/layout/loader_plan.h"
#include "sim/timing/pe_units.h"

namespace treesim::timing {

// Traffic on one level's links (between its units and their parents): bytes sent (port occupancy)
// and delivered per direction, and Σ over instructions of the busiest parent port's bytes.
using LinkWork = layout::LevelTraffic;

struct Work {
  std::uint64_t macs = 0;         // all PEs, every MAC issued (on any MAC datapath)
  std::uint64_t sparse_macs = 0;  // of macs: by sparse walks (timed by their items)
  // All PEs: each datapath's own work in its unit's items (MACs, bytes, values); the int8 array's
  // excludes the ternary and sparse MACs, the DPT datapath's the base-3 bytes.
  std::array<std::uint64_t, kDatapathCount> items{};
  std::uint64_t lm_bytes = 0;  // LM bytes read and written, all PEs
  std::uint64_t dram_read_bytes = 0, dram_write_bytes = 0;
  std::vector<LinkWork> levels;  // index = machine level

  std::uint64_t& operator[](Datapath d) { return items[static_cast<std::size_t>(d)]; }
  std::uint64_t operator[](Datapath d) const { return items[static_cast<std::size_t>(d)]; }
  // A unit's work over all its datapaths.
  std::uint64_t unit_items(Unit u) const {
    std::uint64_t n = 0;
    for (const DatapathSpec& d : datapath_specs())
      if (d.unit == u) n += (*this)[d.path];
    return n;
  }

  std::uint64_t dram_bytes() const { return dram_read_bytes + dram_write_bytes; }
  // The report's names (docs/reports.md): the decoder's bytes count the base-3 ones too.
  std::uint64_t ternary_macs() const { return (*this)[Datapath::kTernaryMac]; }
  std::uint64_t sparse_items() const { return (*this)[Datapath::kSparseWalk]; }
  std::uint64_t dpt_bytes() const { return unit_items(Unit::kDptDecoder); }
  std::uint64_t base3_bytes() const { return (*this)[Datapath::kBase3]; }
  std::uint64_t requant_values() const { return (*this)[Datapath::kRequant]; }
  std::uint64_t copy_bytes() const { return (*this)[Datapath::kCopy]; }

  Work& operator+=(const Work& o) {
    macs += o.macs;
    sparse_macs += o.sparse_macs;
    for (std::size_t d = 0; d < items.size(); ++d) items[d] += o.items[d];
    lm_bytes += o.lm_bytes;
    dram_read_bytes += o.dram_read_bytes;
    dram_write_bytes += o.dram_write_bytes;
    if (levels.size() < o.levels.size()) levels.resize(o.levels.size());
    for (std::size_t l = 0; l < o.levels.size(); ++l) levels[l] += o.levels[l];
    return *this;
  }
};

}  // namespace treesim::timing
