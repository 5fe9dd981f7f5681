// One lock-step MAC instruction over every PE's LM, on a fast int8 kernel (mac_int8.h). An operand
// that a load shared among PEs (lm_replicas.h) is read from, and packed once for, its source PE.
// Large instructions split the PEs over the lane pool's threads (each PE's C is its own: the result
// does not depend on the split).
#pragma once

#include <array>
#include <cstdint>
#include <exception>
#include <vector>

#include "models/host/lane_pool.h"
#include "models/host/lm_replicas.h"
#include "models/host/lm_view.h"
#include "models/host/mac_int8.h"

namespace treesim::host {

// A MAC instruction's operands in every PE, whatever its kind (Mac or TernaryMac).
struct MacShape {
  std::uint64_t a = 0, b = 0, c = 0, m = 0, n = 0, k = 0;
  bool a_signed = false, b_signed = true;
  std::int32_t a_zero = 0, b_zero = 0;
  bool accumulate = false;
};

class MacBatch {
 public:
  // A thread takes at least this many MACs of an instruction: waking one costs more than a
  // smaller share.
  static constexpr std::uint64_t kMacsPerThread = std::uint64_t{1} << 22;

  explicit MacBatch(MacIsa isa) : isa_(isa) {}
  // The exception a piece threw, if any (LanePool::run).
  [[nodiscard]] std::exception_ptr run(const MacShape& op, const LmView& pes, const LmReplicas& shared,
                                       LanePool& pool);

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
    std::uint64_t instruction = 0;  // the run() whose packings the caches hold
  };
  // PEs [first, last) on one worker's caches.
  void run_range(const MacShape& op, const LmView& pes, const LmReplicas& shared, std::uint32_t first,
                 std::uint32_t last, Worker& w) const;
  MacIsa isa_;
  std::vector<Worker> workers_;
  std::uint64_t instruction_ = 0;  // run() calls so far
};

}  // namespace treesim::host
