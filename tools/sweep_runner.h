// Runs a sweep's points, each as its own `treesim run` process (SystemC elaborates once per
// process), `jobs` at a time, with a progress bar on a terminal and a line per point otherwise.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tools/sweep_spec.h"

namespace treesim::tools {

struct RunnerOptions {
  std::string dir;
  std::size_t jobs = 1;
  bool progress_bar = false;  // redraw one line (a terminal) instead of printing a line per point
  bool retry_failed = false;  // run again the points whose record says they failed
};

struct RunnerCounts {
  std::size_t total = 0;    // points asked for
  std::size_t skipped = 0;  // already done
  std::size_t ok = 0, failed = 0;
  std::size_t lost = 0;      // killed by a signal: not recorded, so a re-run runs them
  bool interrupted = false;  // SIGINT or SIGTERM: the running points were stopped, not recorded
};

// Runs those of `points` whose record is missing. Each record is written when its point ends.
RunnerCounts run_points(const SweepSpec& spec, const std::vector<SweepPoint>& points, std::size_t all_points,
                        const RunnerOptions& options);

// The number of CPUs this process may use (its affinity mask), at least 1.
std::size_t available_cpus();

}  // namespace treesim::tools
