#include "sim/timing/list_schedule.h"

#include <algorithm>
#include <map>

namespace treesim::timing {

std::uint64_t list_schedule(const std::vector<ScheduleStep>& steps) {
  static const std::vector<Range> kNone;
  Scoreboard board;
  std::map<Resource, std::uint64_t> free_at;
  std::uint64_t end = 0;
  for (const ScheduleStep& s : steps) {
    const std::vector<Range>& reads = s.reads ? *s.reads : kNone;
    const std::vector<Range>& writes = s.writes ? *s.writes : kNone;
    // Each resource serves its steps in order: a step's use of it starts when the step is ready
    // and the resource has finished the steps before; the step ends when its last use does, plus
    // the rest of its duration (a transfer's path latency).
    const std::uint64_t ready = board.ready(reads, writes);
    std::uint64_t longest = 0, finish = ready;
    for (const auto& [r, busy] : s.holds) {
      const std::uint64_t start = std::max(ready, free_at[r]);
      free_at[r] = start + busy;
      finish = std::max(finish, start + busy);
      longest = std::max(longest, busy);
    }
    const std::uint64_t done = finish + (s.duration > longest ? s.duration - longest : 0);
    board.commit(reads, writes, done);
    end = std::max(end, done);
  }
  return end;
}

}  // namespace treesim::timing
