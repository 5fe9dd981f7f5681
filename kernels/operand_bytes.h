// Operands as DRAM bytes and back: int32 values as little-endian bytes (biases, per-channel
// multipliers), and 8-bit codes as the int32 values the host references compute with.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/dtype.h"

namespace treesim::kernels {

std::vector<std::uint8_t> int32_bytes(const std::vector<std::int32_t>& v);
// Each byte as a uint8 or int8 code (by `t`).
std::vector<std::int32_t> codes(const std::vector<std::uint8_t>& bytes, core::DType t);

}  // namespace treesim::kernels
