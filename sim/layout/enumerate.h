// Candidate layouts of a tensor on a machine, for the tuner: each level either splits one axis (by
// a divisor of its fan-out that divides what is left of the axis, outside or inside the address
// digits), is pinned to unit 0 (`1_L`) or is left out (the tensor is broadcast over it). Every
// candidate binds (fits the LM); the list stops at `limit`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/layout/tensor_layout.h"
#include "sim/machine/machine_config.h"

namespace treesim::layout {

struct EnumerateOptions {
  std::size_t limit = 1000;
  bool allow_broadcast = true;  // leave levels out (replicate over them)
  bool allow_pinned = true;     // `1_L`: use unit 0 of the level only
  bool allow_partial = false;   // split by divisors smaller than the fan-out (partial level use)
};

// Order: full splits first (outer before inner, axis 0 first), then partial splits, then pinned,
// then broadcast — so the first candidates use the whole machine. No duplicates.
std::vector<TensorLayout> enumerate_layouts(const std::vector<std::uint64_t>& shape,
                                            const machine::MachineConfig& machine, std::size_t element_bytes,
                                            const EnumerateOptions& options = {});

}  // namespace treesim::layout
