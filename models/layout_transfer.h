// The functional side of loads and stores by TensorLayout: the block's bytes (row-major, staged
// from DRAM) into every replica's LM slots with padding filled, and replica 0 of every element
// back out of the LMs.
#pragma once

#include <cstdint>
#include <vector>

#include "models/pe.h"
#include "sim/program/checked_program.h"

namespace treesim::models {

// Writes every replica of every element of the row-major block `host` into the PEs' LMs at
// `lm_base`, and the value `pad` into every padding slot.
void scatter_block(const program::Transfer& t, const std::uint8_t* host, const std::vector<Pe*>& pes,
                   std::uint64_t lm_base, std::int32_t pad);

// Reads replica 0 of every element of the block from the LMs at `lm_base` into the row-major
// block `host`.
void gather_block(const program::Transfer& t, const std::vector<Pe*>& pes, std::uint64_t lm_base,
                  std::uint8_t* host);

}  // namespace treesim::models
