// One lock-step MAC instruction over every PE's LM, on the VNNI kernel (mac_vnni.h). Operands
// replicated into many PEs (the same bytes) are packed once: each PE's A and B are compared with
// the few most recently packed ones, byte for byte, and a packing is reused only when the bytes are
// equal, so what a PE multiplies is always what its LM holds.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/mac_vnni.h"
#include "models/pe.h"

namespace treesim::models {

// A MAC instruction's operands in every PE, whatever its kind (Mac or TernaryMac).
struct MacShape {
  std::uint64_t a = 0, b = 0, c = 0, m = 0, n = 0, k = 0;
  bool a_signed = false, b_signed = true;
  std::int32_t a_zero = 0, b_zero = 0;
  bool accumulate = false;
};

class MacBatch {
 public:
  void run(const MacShape& op, const std::vector<Pe*>& pes);

 private:
  // A few packings of each operand, with the bytes they were packed from.
  template <typename Packed>
  struct Cache {
    static constexpr std::size_t kEntries = 8;
    std::array<std::vector<std::uint8_t>, kEntries> source;
    std::array<Packed, kEntries> packed;
    std::array<bool, kEntries> valid{};
    std::size_t next = 0;
    void clear() { valid.fill(false); }
  };
  Cache<PackedA> a_;
  Cache<PackedB> b_;
};

}  // namespace treesim::models
