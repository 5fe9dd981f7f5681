// Human-readable numbers for summaries.
#pragma once

#include <cstdint>
#include <string>

namespace treesim::tools {

// 65536 → "64 KiB"; exact binary multiples print without decimals.
std::string format_bytes(std::uint64_t bytes);
// 2.56e14, "op/s" → "256 Top/s" (decimal prefixes).
std::string format_rate(double value, const std::string& unit);

}  // namespace treesim::tools
