// The host kernel behind the PE's int8 MAC array: C (int32, m×n) (+)= A'·B' where A' (m×k) and B'
// (k×n), both row-major, are the operands minus their zero points, widened to int16. Results are
// the int32 accumulator's, wrapping like the hardware's adders.
#pragma once

#include <cstdint>

namespace treesim::host {

void mac_int16(const std::int16_t* a, const std::int16_t* b, std::int32_t* c, std::uint64_t m,
               std::uint64_t n, std::uint64_t k, bool accumulate);

}  // namespace treesim::host
