// The loader's traffic for placing a tensor from DRAM (load) and gathering it back (store), per tree
// level and direction. The SystemC loader executes exactly this plan; here it is computed in closed
// form from the layout's digits, never by listing elements.
//
// Definitions (level X's links join X's units to their parents; level 0's parent is the board, which
// DRAM feeds). need(U) = the padded slots (elements and padding) stored anywhere below unit U.
// Padding travels: it is zero-filled data the PEs must receive (note §4.3.6: the loader writes pad
// slots with zero), but DRAM holds only logical elements, so padding is born at the board.
//   dram_read_bytes             = logical elements × bytes (each distinct element read once)
//   down_delivered_bytes(X)     = Σ_{U at X} |need(U)| × bytes
//   down_sent_bytes(X)          = Σ_{parents P} |need(P)| × bytes   (a broadcast takes P's port once)
//   busiest_down_port_bytes(X)  = max_P |need(P)| × bytes
//   transfers (load)            = Σ_X Σ_{parents P} (distinct payloads P sends to its children):
//                                 children with equal need get one broadcast send, others one each.
// Gather takes replica 0 of every logical element (padding stays behind) up to DRAM:
//   up_sent_bytes(X) = up_delivered_bytes(X) = Σ_{U at X} |elements whose replica 0 is below U| × bytes
//   busiest_up_port_bytes(X)    = max_P of what P receives from its children
//   dram_write_bytes            = logical elements × bytes
//   transfers (gather)          = Σ_X units of X that send a non-empty block up.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/layout/bound_layout.h"
#include "sim/layout/tensor_layout.h"
#include "sim/machine/machine_config.h"

namespace treesim::layout {

struct LevelTraffic {
  std::uint64_t down_sent_bytes = 0, down_delivered_bytes = 0, up_sent_bytes = 0, up_delivered_bytes = 0,
                busiest_down_port_bytes = 0, busiest_up_port_bytes = 0;
  bool operator==(const LevelTraffic& o) const {
    return down_sent_bytes == o.down_sent_bytes && down_delivered_bytes == o.down_delivered_bytes &&
           up_sent_bytes == o.up_sent_bytes && up_delivered_bytes == o.up_delivered_bytes &&
           busiest_down_port_bytes == o.busiest_down_port_bytes &&
           busiest_up_port_bytes == o.busiest_up_port_bytes;
  }
  // Traffic of several transfers: every figure adds (the busiest ports' bytes too: lock-step
  // transfers each wait for their own busiest port).
  LevelTraffic& operator+=(const LevelTraffic& o) {
    down_sent_bytes += o.down_sent_bytes;
    down_delivered_bytes += o.down_delivered_bytes;
    up_sent_bytes += o.up_sent_bytes;
    up_delivered_bytes += o.up_delivered_bytes;
    busiest_down_port_bytes += o.busiest_down_port_bytes;
    busiest_up_port_bytes += o.busiest_up_port_bytes;
    return *this;
  }
};

struct TrafficPlan {
  std::uint64_t dram_read_bytes = 0, dram_write_bytes = 0, transfers = 0;
  std::vector<LevelTraffic> levels;  // index = machine level index
};

// @pre the layout has no _Time sub-axes (else LayoutError E140); it must bind (else LayoutError).
TrafficPlan plan_load(const BoundLayout& layout);
TrafficPlan plan_gather(const BoundLayout& layout);
TrafficPlan plan_load(const TensorLayout& layout, const std::vector<std::uint64_t>& shape,
                      std::size_t element_bytes, const machine::MachineConfig& machine);
TrafficPlan plan_gather(const TensorLayout& layout, const std::vector<std::uint64_t>& shape,
                        std::size_t element_bytes, const machine::MachineConfig& machine);

}  // namespace treesim::layout
