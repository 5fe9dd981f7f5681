// A program's time without simulating it: its steps in program order, each starting when the data
// it reads and overwrites is ready (the scoreboard's rule, as the sequencer issues) and every
// resource it holds is free, each resource held for its stage's cycles (the cost model's closed
// forms). What a planner's estimate needs when steps overlap (double-buffered passes), and as exact
// as the closed forms when one transfer's stages do not contend with another's in ways the busy
// times do not show.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "sim/timing/resource.h"
#include "sim/timing/scoreboard.h"

namespace treesim::timing {

struct ScheduleStep {
  const std::vector<Range>* reads = nullptr;
  const std::vector<Range>* writes = nullptr;
  std::vector<std::pair<Resource, std::uint64_t>> holds;  // each resource and its busy cycles
  std::uint64_t duration = 0;                             // from its start to its result
};

// The cycle at which the last step ends.
std::uint64_t list_schedule(const std::vector<ScheduleStep>& steps);

}  // namespace treesim::timing
