#include "tools/sweep_slurm.h"

#include <fmt/format.h>

namespace treesim::tools {
namespace {

// Quoted for sh: paths may hold spaces.
std::string sh_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::string slurm_script(const std::string& exe, const std::string& spec, const std::string& dir,
                         std::size_t chunks, std::size_t chunk_size, const SlurmOptions& options) {
  std::string s = "#!/bin/sh\n";
  s += "# A treesim sweep as a job array: one task per chunk of points. After it: treesim sweep --collect "
       "DIR\n";
  s += "#SBATCH --job-name=treesim-sweep\n";
  s += fmt::format("#SBATCH --array=0-{}{}\n", chunks - 1,
                   options.array_max ? fmt::format("%{}", options.array_max) : "");
  s += "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n";
  s += fmt::format("#SBATCH --output={}/slurm/%A_%a.out\n", dir);
  if (!options.partition.empty()) s += fmt::format("#SBATCH --partition={}\n", options.partition);
  if (!options.time.empty()) s += fmt::format("#SBATCH --time={}\n", options.time);
  s += fmt::format(
      "exec {} sweep {} --out {} --jobs 1 --chunk-size {} --only-chunk \"$SLURM_ARRAY_TASK_ID\"\n",
      sh_quote(exe), sh_quote(spec), sh_quote(dir), chunk_size);
  return s;
}

}  // namespace treesim::tools
