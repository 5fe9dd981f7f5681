// Loads and stores by TensorLayout: the layout bound to the tensor and machine, its traffic plan,
// and the functional scatter (DRAM → every replica's LM slot, padding zeroed) and gather (replica 0
// of every element → DRAM).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/pe.h"
#include "sim/layout/bound_layout.h"
#include "sim/layout/loader_plan.h"
#include "sim/machine/machine_config.h"
#include "sim/program/instruction.h"

namespace treesim::models {

struct LayoutTransfer {
  layout::BoundLayout bound;
  std::uint64_t footprint_bytes = 0;  // LM bytes per PE from the load's base offset
  layout::TrafficPlan load;
  layout::TrafficPlan gather;
};

// Parses and binds `layout_text` for `tensor`; throws layout::LayoutError on an invalid layout.
LayoutTransfer prepare_transfer(const std::string& layout_text, const program::TensorDecl& tensor,
                                const machine::MachineConfig& machine);

// Writes every replica of every element of the row-major `host` tensor into the PEs' LMs at
// `lm_base`, and zeros every padding slot.
void scatter_tensor(const LayoutTransfer& t, const std::uint8_t* host, const std::vector<Pe*>& pes,
                    std::uint64_t lm_base);

// Reads replica 0 of every element from the LMs at `lm_base` into the row-major `host` tensor.
void gather_tensor(const LayoutTransfer& t, const std::vector<Pe*>& pes, std::uint64_t lm_base,
                   std::uint8_t* host);

}  // namespace treesim::models
