// Every PE's local memory as the host holds it: one arena, PE p's LM at base + p · stride. The
// host-speed helpers work on this view; the PE array module owns the arena.
#pragma once

#include <cstdint>

namespace treesim::host {

struct LmView {
  std::uint8_t* base = nullptr;
  std::uint64_t stride = 0;  // bytes per PE: its LM
  std::uint32_t count = 0;   // PEs
  std::uint8_t* lm(std::uint64_t pe) const { return base + pe * stride; }
};

}  // namespace treesim::host
