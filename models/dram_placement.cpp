#include "models/dram_placement.h"

#include <iterator>
#include <map>
#include <utility>

#include "models/block_runs.h"
#include "sim/core/dtype.h"

namespace treesim::models {
namespace {

// A tensor's placed elements as disjoint intervals, begin → {end, channel}: a run of elements is
// placed where nothing placed it before (the first transfer wins), and runs that meet in one
// channel join.
class Intervals {
 public:
  // Places the unplaced elements of [begin, end) in `channel`; returns how many.
  std::uint64_t place(std::uint64_t begin, std::uint64_t end, std::uint64_t channel) {
    // The gaps between placed runs inside [begin, end), found before any is filled.
    gaps_.clear();
    auto it = runs_.upper_bound(begin);
    if (it != runs_.begin() && std::prev(it)->second.end > begin) begin = std::prev(it)->second.end;
    for (; begin < end; ++it) {
      const std::uint64_t gap_end = it == runs_.end() ? end : std::min(end, it->first);
      if (begin < gap_end) gaps_.push_back({begin, gap_end});
      if (it == runs_.end()) break;
      begin = it->second.end;
    }
    std::uint64_t placed = 0;
    for (const auto& [from, to] : gaps_) {
      insert(from, to, channel);
      placed += to - from;
    }
    return placed;
  }

  std::vector<TensorPlacement::Run> runs() const {
    std::vector<TensorPlacement::Run> out;
    for (const auto& [begin, r] : runs_) out.push_back({begin, r.end, r.channel});
    return out;
  }

 private:
  struct Run {
    std::uint64_t end = 0, channel = 0;
  };
  void insert(std::uint64_t begin, std::uint64_t end, std::uint64_t channel) {
    auto next = runs_.lower_bound(begin);
    if (next != runs_.begin()) {
      auto prev = std::prev(next);
      if (prev->second.end == begin && prev->second.channel == channel) {
        prev->second.end = end;
        if (next != runs_.end() && next->first == end && next->second.channel == channel) {
          prev->second.end = next->second.end;
          runs_.erase(next);
        }
        return;
      }
    }
    if (next != runs_.end() && next->first == end && next->second.channel == channel) {
      const Run r{next->second.end, channel};
      runs_.erase(next);
      runs_.emplace(begin, r);
      return;
    }
    runs_.emplace(begin, Run{end, channel});
  }

  std::map<std::uint64_t, Run> runs_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> gaps_;
};

}  // namespace

std::vector<TensorPlacement> place_tensors(const machine::MachineConfig& machine,
                                           const program::Program& program,
                                           const program::CheckedProgram& checked) {
  std::vector<TensorPlacement> placed;
  for (const program::TensorDecl& t : program.tensors)
    placed.push_back({t.bytes(), core::dtype_bytes(t.dtype), {}});
  const std::uint64_t channels = machine.dram_channels();
  if (channels == 1 || machine.dram.placement != machine::DramPlacement::kLayout) return placed;
  std::vector<Intervals> intervals(program.tensors.size());
  std::vector<std::uint64_t> unplaced;  // per tensor: elements still to place
  for (const program::TensorDecl& t : program.tensors) unplaced.push_back(t.elements());
  for (const program::PreparedInstr& in : checked.instrs) {
    if (!in.transfer) continue;
    const program::Transfer& t = *in.transfer;
    // A layout that copies the tensor into every unit leaves it to the equal pieces.
    if (unplaced[t.tensor] == 0 || t.bound.level_is_omitted(0)) continue;
    for_each_value_run(t, 0, [&](std::uint64_t first, std::uint64_t count, std::uint64_t unit) {
      unplaced[t.tensor] -= intervals[t.tensor].place(first, first + count, unit);
    });
  }
  for (std::size_t i = 0; i < placed.size(); ++i) placed[i].placed = intervals[i].runs();
  return placed;
}

}  // namespace treesim::models
