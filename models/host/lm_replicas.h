// Replicated operands shared instead of copied. A load that places the same bytes in many PEs
// (a layout that broadcasts) writes them into one PE per replica group and records here that the
// other PEs' LM range holds those bytes. A MAC reads a shared operand straight from its source PE;
// any other access to a shared range first makes the copies real (materialize), so every
// instruction sees exactly what real copies would hold. A load that overwrites a whole shared
// range in every PE sharing it drops the record without copying.
#pragma once

#include <cstdint>
#include <vector>

#include "models/host/lm_view.h"
#include "sim/timing/scoreboard.h"

namespace treesim::host {

class LmReplicas {
 public:
  // PE q's LM [lo, hi) holds what PE source[q]'s does (source[q] == q: its own bytes). The sources'
  // bytes are real; the range overlaps no recorded range.
  void add(std::uint64_t lo, std::uint64_t hi, std::vector<std::uint32_t> source);

  // Makes real, and forgets, every shared range that overlaps one of these LM ranges (other
  // spaces are ignored).
  void materialize(const std::vector<timing::Range>& ranges, const LmView& pes);
  // Makes real every shared range that overlaps [lo, hi) without lying inside it.
  void materialize_partial(std::uint64_t lo, std::uint64_t hi, const LmView& pes);
  void materialize_all(const LmView& pes);

  // Before a write of [lo, hi) to every PE with covered[q]: shared ranges inside it whose sharing
  // PEs are all covered are forgotten (their bytes are about to be replaced); the others overlapping
  // it are made real.
  void overwrite(std::uint64_t lo, std::uint64_t hi, const std::vector<bool>& covered, const LmView& pes);

  // The PE whose LM holds PE q's bytes [lo, hi), a range that overlaps no shared range partially.
  std::uint32_t source(std::uint32_t q, std::uint64_t lo, std::uint64_t hi) const;
  // Every PE's source of [lo, hi) at once (index = PE), or null when every PE holds its own.
  const std::vector<std::uint32_t>* sources(std::uint64_t lo, std::uint64_t hi) const;
  bool empty() const { return entries_.empty(); }
  bool overlaps(std::uint64_t lo, std::uint64_t hi) const;

 private:
  struct Entry {
    std::uint64_t lo = 0, hi = 0;
    std::vector<std::uint32_t> source;
  };
  void copy_out(const Entry& e, const LmView& pes) const;
  std::vector<Entry> entries_;
};

}  // namespace treesim::host
