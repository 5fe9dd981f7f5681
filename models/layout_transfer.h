// Loads and stores by TensorLayout: the layout bound to the block of a tensor and the machine, its
// traffic plan, and the functional scatter (DRAM → every replica's LM slot, padding filled) and
// gather (replica 0 of every element → DRAM).
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

// Where a block of a row-major DRAM tensor lies: the block's element i (row-major over `shape`)
// is the tensor's element full_index(i).
struct Block {
  std::vector<std::uint64_t> offset, shape, tensor_strides;
  bool whole = true;  // the block is the whole tensor: full_index(i) = i
  std::uint64_t full_index(std::uint64_t i) const;
};

struct LayoutTransfer {
  layout::BoundLayout bound;
  Block block;
  std::uint64_t footprint_bytes = 0;  // LM bytes per PE from the load's base offset
  layout::TrafficPlan load;
  layout::TrafficPlan gather;
};

// Binds `layout` for the block of `tensor` with `shape` at `offset` (both empty:
// the whole tensor); throws layout::LayoutError on an invalid layout and std::invalid_argument
// when the block is not inside the tensor.
LayoutTransfer prepare_transfer(const layout::TensorLayout& layout, const program::TensorDecl& tensor,
                                const std::vector<std::uint64_t>& offset,
                                const std::vector<std::uint64_t>& shape,
                                const machine::MachineConfig& machine);

// Writes every replica of every element of the block of the row-major `host` tensor into the
// PEs' LMs at `lm_base`, and the value `pad` into every padding slot.
void scatter_tensor(const LayoutTransfer& t, const std::uint8_t* host, const std::vector<Pe*>& pes,
                    std::uint64_t lm_base, std::int32_t pad);

// Reads replica 0 of every element of the block from the LMs at `lm_base` into the row-major
// `host` tensor.
void gather_tensor(const LayoutTransfer& t, const std::vector<Pe*>& pes, std::uint64_t lm_base,
                   std::uint8_t* host);

}  // namespace treesim::models
