// One lock-step MAC instruction over every PE's LM, on a fast int8 kernel (mac_int8.h). An operand
// that a load shared among PEs (lm_replicas.h) is read from, and packed once for, its source PE.
// Large instructions split the PEs over the host's cores (each PE's C is its own: the result does
// not depend on the split).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "models/lm_replicas.h"
#include "models/mac_int8.h"
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
  // Below this many MACs an instruction runs on one core: starting threads costs more than it
  // saves (measured: the 1024³ qgemm on sa1024, 4 Mi MACs per instruction, ran faster on one).
  static constexpr std::uint64_t kParallelMacs = std::uint64_t{1} << 26;

  // At most `max_threads` threads (default: the cores this process may run on).
  explicit MacBatch(MacIsa isa, std::uint32_t max_threads = usable_cores())
      : isa_(isa), max_threads_(max_threads < 1 ? 1 : max_threads) {}
  // The cores this process may run on (its affinity mask, which containers and taskset narrow).
  static std::uint32_t usable_cores();
  void run(const MacShape& op, const std::vector<Pe*>& pes, const LmReplicas& shared);

 private:
  // Packings of an operand, with the PE whose bytes each was packed from. A board-sized qgemm
  // shares each B among PEs spread over 16 MABs and each A over 32 PEs, visited in turn: room for
  // 32 packings keeps every one until its PEs are done.
  template <typename Packed>
  struct Cache {
    static constexpr std::size_t kEntries = 32;
    std::array<std::uint32_t, kEntries> source{};
    std::array<Packed, kEntries> packed;
    std::array<bool, kEntries> valid{};
    std::size_t next = 0, last = 0;  // the entry to replace next, the last one found
  };
  // Each worker's caches on lines of their own: the threads update them on every PE.
  struct alignas(64) Worker {
    Cache<PackedA> a;
    Cache<PackedB> b;
  };
  // PEs [first, last) on one worker's caches.
  void run_range(const MacShape& op, const std::vector<Pe*>& pes, const LmReplicas& shared,
                 std::uint32_t first, std::uint32_t last, Worker& w) const;
  MacIsa isa_;
  std::uint32_t max_threads_;
  std::vector<Worker> workers_;
};

}  // namespace treesim::models
