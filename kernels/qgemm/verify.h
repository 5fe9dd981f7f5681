// Element-by-element comparison of a kernel's output with the host reference.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/report/run_stats.h"

namespace treesim::kernels {

// Compares row-major rows×cols outputs; the first mismatch is named as "C[i,j]: got x, expected y".
report::VerifyResult compare_outputs(const std::vector<std::int32_t>& got,
                                     const std::vector<std::int32_t>& expected, std::uint64_t cols);

}  // namespace treesim::kernels
