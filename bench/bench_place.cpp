// Placing and gathering a 64 MiB int8 tensor over the 8,192-PE board (issue: the SystemC machine).
// SystemC elaborates once per process, so this is a single-iteration whole-run benchmark: run it
// alone (`make bench` runs each bench_* program in its own process).
#include <benchmark/benchmark.h>

#include <sys/resource.h>

#include <random>

#include "models/simulation.h"
#include "sim/layout/parse.h"
#include "sim/machine/machine_file.h"

namespace {

using namespace treesim;

void BM_PlaceAndGather64MiBOnBoard(benchmark::State& state) {
  machine::MachineConfig m = machine::load_machine_file(TREESIM_SOURCE_DIR "/configs/mncore-board.yaml");
  // One 8 KiB row per PE.
  const layout::TensorLayout layout = layout::parse_layout_or_throw("((16_L2B, 8_L1B, 16_MAB, 4_PE), (8192:1))", m);
  program::Program p;
  p.tensors = {{"T", {8192, 8192}, core::DType::kInt8}, {"U", {8192, 8192}, core::DType::kInt8}};
  program::Load load;
  load.tensor = "T";
  load.layout = layout;
  program::Store store;
  store.tensor = "U";
  store.layout = layout;
  p.instrs = {load, store};
  std::vector<std::uint8_t> input(8192ull * 8192);
  std::mt19937_64 gen(1);
  for (auto& b : input) b = static_cast<std::uint8_t>(gen());
  models::SimulationResult r;
  for (auto _ : state) r = models::simulate(m, p, {{"T", input}}, {});
  if (r.dram.at("U") != input) state.SkipWithError("gathered tensor differs");
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double wall = r.elaboration_seconds + r.simulation_seconds;
  state.counters["elaboration_s"] = r.elaboration_seconds;
  state.counters["simulation_s"] = r.simulation_seconds;
  state.counters["tensor_bytes_per_wall_s"] =
      2.0 * static_cast<double>(input.size()) / wall;  // load + gather
  state.counters["sim_cycles"] = static_cast<double>(r.stats.cycles);
  state.counters["sim_cycles_per_wall_s"] = static_cast<double>(r.stats.cycles) / wall;
  state.counters["peak_rss_MiB"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
}
BENCHMARK(BM_PlaceAndGather64MiBOnBoard)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
