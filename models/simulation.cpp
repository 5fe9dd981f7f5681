#include "models/simulation.h"

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "models/board.h"
#include "sim/io/atomic_file.h"
#include "sim/topology/topology.h"

namespace treesim::models {
namespace {

std::uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace

SimulationResult simulate(const machine::MachineConfig& machine, const program::Program& program,
                          std::map<std::string, std::vector<std::uint8_t>> inputs,
                          const SimulationOptions& options) {
  using clock = std::chrono::steady_clock;
  SimulationResult result;
  auto t0 = clock::now();
  configure_time();
  topology::Topology topo(machine);
  Board board("board", machine, topo);
  auto t1 = clock::now();  // elaboration: the tree of modules with their memories
  result.rss_after_elaboration_bytes = resident_bytes();
  Executor executor(board, program, std::move(inputs), !options.vcd_path.empty());
  board.set_job([&executor](std::uint64_t now) { return executor.advance(now); });
  board.simulate();
  auto t2 = clock::now();
  result.elaboration_seconds = std::chrono::duration<double>(t1 - t0).count();
  result.simulation_seconds = std::chrono::duration<double>(t2 - t1).count();  // checks included
  result.stats = executor.stats();
  result.timings = executor.timings();
  for (const auto& [first, last] : options.phases) result.phases.push_back(executor.stats(first, last));
  for (const auto& t : program.tensors) result.dram[t.name] = executor.dram(t.name);
  if (!options.vcd_path.empty()) {
    std::ostringstream vcd;
    executor.trace().write(vcd, topo, options.vcd_filter, result.stats.cycles);
    io::write_file_atomically(options.vcd_path, vcd.str());
  }
  return result;
}

}  // namespace treesim::models
