// The functional side of loads and stores by TensorLayout: the block's bytes (row-major, staged
// from DRAM) into every replica's LM slots with padding filled, and replica 0 of every element
// back out of the LMs.
#pragma once

#include <cstdint>
#include <vector>

#include "models/lm_replicas.h"
#include "models/pe.h"
#include "sim/program/checked_program.h"

namespace treesim::models {

// Writes every replica of every element of the block into the PEs' LMs at `lm_base`, and the value
// `pad` into every padding slot. `host` is the block, row-major; or, with `tensor` (the transfer's
// block mapping), the whole row-major tensor (DRAM's bytes through DMI). With `shared`, what the
// load overwrites is made real or forgotten first, and replicas of a dense layout are recorded
// there as shared instead of copied.
void scatter_block(const program::Transfer& t, const std::uint8_t* host, const std::vector<Pe*>& pes,
                   std::uint64_t lm_base, std::int32_t pad, const program::Block* tensor = nullptr,
                   LmReplicas* shared = nullptr);

// Reads replica 0 of every element of the block from the LMs at `lm_base` into the row-major
// block `host`.
void gather_block(const program::Transfer& t, const std::vector<Pe*>& pes, std::uint64_t lm_base,
                  std::uint8_t* host, const program::Block* tensor = nullptr);

}  // namespace treesim::models
