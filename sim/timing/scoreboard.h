// Data dependencies between instructions: who last wrote and read each memory range, so that an
// instruction starts only after the data it reads is written (RAW) and overwrites nothing still
// being read or written (WAR, WAW). Also remembers which ranges were ever written, so that reading
// a range never written is an error rather than silent garbage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace treesim::timing {

// A half-open byte range [lo, hi) in an address space: 0 = the LMs (the same offsets in every
// PE), 1 + i = DRAM tensor i.
struct Range {
  std::uint32_t space = 0;
  std::uint64_t lo = 0, hi = 0;
  bool overlaps(const Range& o) const { return space == o.space && lo < o.hi && o.lo < hi; }
};

class Scoreboard {
 public:
  // Earliest cycle at which an instruction with these reads and writes may start; `by` (when given)
  // receives the instruction whose access sets it (SIZE_MAX when none does).
  std::uint64_t ready(const std::vector<Range>& reads, const std::vector<Range>& writes,
                      std::size_t* by = nullptr) const;
  // Records instruction `instr`, which reads and writes these ranges and completes at `end`.
  void commit(const std::vector<Range>& reads, const std::vector<Range>& writes, std::uint64_t end,
              std::size_t instr = SIZE_MAX);
  // True when every byte of `r` has been written by some earlier instruction.
  bool written(const Range& r) const;
  // Marks `r` as holding data without an instruction (e.g. a DRAM input tensor).
  void mark_written(const Range& r);

 private:
  struct Access {
    Range range;
    bool write;
    std::uint64_t end;
    std::size_t instr;  // the access that ends last
  };
  std::vector<Access> accesses_;
  std::map<std::uint32_t, std::map<std::uint64_t, std::uint64_t>> written_;  // space → lo → hi, disjoint
};

}  // namespace treesim::timing
