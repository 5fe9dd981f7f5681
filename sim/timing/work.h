// The one counter struct: what an instruction or a run moved and computed. The modules count into
// it per instruction, a run sums it with +=, the roofline and the energy read it, and the report
// prints it. A new counter is a field here and a line in the JSON writer.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/layout/loader_plan.h"

namespace treesim::timing {

// Traffic on one level's links (between its units and their parents): bytes sent (port occupancy)
// and delivered per direction, and Σ over instructions of the busiest parent port's bytes.
using LinkWork = layout::LevelTraffic;

struct Work {
  std::uint64_t macs = 0;            // all PEs, every MAC issued
  std::uint64_t ternary_macs = 0;    // of macs: on the ternary MAC path
  std::uint64_t sparse_macs = 0;     // of macs: by sparse walks
  std::uint64_t sparse_items = 0;    // entries and position reads of the sparse walks, all PEs
  std::uint64_t dpt_bytes = 0;       // all PEs
  std::uint64_t base3_bytes = 0;     // of dpt_bytes: on the base-3 decoder
  std::uint64_t requant_values = 0;  // all PEs
  std::uint64_t copy_bytes = 0;      // all PEs
  std::uint64_t lm_bytes = 0;        // LM bytes read and written, all PEs
  std::uint64_t dram_read_bytes = 0, dram_write_bytes = 0;
  std::vector<LinkWork> levels;  // index = machine level

  std::uint64_t dram_bytes() const { return dram_read_bytes + dram_write_bytes; }

  Work& operator+=(const Work& o) {
    macs += o.macs;
    ternary_macs += o.ternary_macs;
    sparse_macs += o.sparse_macs;
    sparse_items += o.sparse_items;
    dpt_bytes += o.dpt_bytes;
    base3_bytes += o.base3_bytes;
    requant_values += o.requant_values;
    copy_bytes += o.copy_bytes;
    lm_bytes += o.lm_bytes;
    dram_read_bytes += o.dram_read_bytes;
    dram_write_bytes += o.dram_write_bytes;
    if (levels.size() < o.levels.size()) levels.resize(o.levels.size());
    for (std::size_t l = 0; l < o.levels.size(); ++l) levels[l] += o.levels[l];
    return *this;
  }
};

}  // namespace treesim::timing
