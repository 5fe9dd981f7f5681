// A sweep as a Slurm job array: one array task per chunk of points, each running
// `treesim sweep SPEC --out DIR --only-chunk I`; `treesim sweep --collect DIR` merges them after.
#pragma once

#include <cstddef>
#include <string>

namespace treesim::tools {

struct SlurmOptions {
  std::string partition;      // empty: the cluster's default
  std::size_t array_max = 0;  // at most this many tasks at once (0: no limit)
  std::string time;           // per task, as sbatch takes it ("10:00"); empty: the partition's default
};

// The sbatch script: absolute paths throughout, so it runs from any folder of a shared file system.
std::string slurm_script(const std::string& exe, const std::string& spec, const std::string& dir,
                         std::size_t chunks, std::size_t chunk_size, const SlurmOptions& options);

}  // namespace treesim::tools
