// Simulated qgemm against a native host int8 GEMM (oneDNN) on the same shape, M = N = K = 2048, in
// one process: the simulator's wall time, oneDNN's, their ratio, and simulated cycles per wall
// second. SystemC elaborates once per process, so the simulation runs once. The simulator's CPU
// time (all its threads) is reported too: on a shared machine it says what the wall time hides.
// With --timing-only the same program runs without moving a byte (SimulationOptions::functional):
// the floor that elaboration and the timelines put under any full run.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstring>
#include <ctime>
#include <random>

#include "host/host_pages.h"
#include "kernels/qgemm/qgemm.h"
#include "models/simulation.h"
#include "sim/machine/machine_file.h"

#ifdef TREESIM_HAVE_DNNL
#include <dnnl.hpp>
#endif

namespace {

using namespace treesim;
constexpr std::uint64_t kSize = 2048;

std::vector<std::uint8_t> random_bytes(std::uint64_t n, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(gen() >> 24);
  return v;
}

#ifdef TREESIM_HAVE_DNNL
// Seconds of the fastest of `reps` runs of oneDNN's u8×s8→s32 matmul (its fast int8 path).
double onednn_seconds(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b, int reps) {
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  const dnnl::memory::dim n = static_cast<dnnl::memory::dim>(kSize);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(eng);
  dnnl::memory::desc a_md({n, n}, dt::u8, tag::ab), b_md({n, n}, dt::s8, tag::ab),
      c_md({n, n}, dt::s32, tag::ab);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), eng);
  dnnl::matmul mm(pd);
  std::vector<std::int32_t> c(kSize * kSize);
  dnnl::memory am(a_md, eng, const_cast<std::uint8_t*>(a.data())),
      bm(b_md, eng, const_cast<std::uint8_t*>(b.data())), cm(c_md, eng, c.data());
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    mm.execute(stream, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
    stream.wait();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  benchmark::DoNotOptimize(c.data());
  return best;
}
#endif

void qgemm_vs_onednn(benchmark::State& state, bool functional) {
  host::reserve_huge_page_heap();  // the heap the treesim command runs with
  machine::MachineConfig m = machine::load_machine_file(TREESIM_SOURCE_DIR "/configs/mncore-board.yaml");
  kernels::QgemmProblem p;
  p.m = p.n = p.k = kSize;
  p.a_dtype = core::DType::kUInt8;
  p.a_zero = 128;
  p.out.multipliers = {numeric::quantize_multiplier(1.0 / (128.0 * 45.0))};
  kernels::QgemmPlan plan = kernels::default_plan(p, m);
  program::Program prog = kernels::build_program(p, plan, m);
  std::vector<std::uint8_t> a = random_bytes(kSize * kSize, 1), b = random_bytes(kSize * kSize, 2);
  models::SimulationResult r;
  double sim_seconds = 0, sim_cpu_seconds = 0;
  for (auto _ : state) {
    const std::clock_t c0 = std::clock();
    auto t0 = std::chrono::steady_clock::now();
    models::SimulationOptions options;
    options.functional = functional;
    r = models::simulate(m, prog, {{"A", a}, {"B", b}}, options);
    sim_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    sim_cpu_seconds = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
  }
  state.counters["sim_wall_s"] = sim_seconds;
  state.counters["sim_cpu_s"] = sim_cpu_seconds;
  state.counters["sim_cycles"] = static_cast<double>(r.stats.cycles);
  state.counters["sim_cycles_per_wall_s"] = static_cast<double>(r.stats.cycles) / sim_seconds;
  state.counters["sim_macs_per_wall_s"] = static_cast<double>(r.stats.macs) / sim_seconds;
#ifdef TREESIM_HAVE_DNNL
  const double native = onednn_seconds(a, b, 5);
  state.counters["onednn_wall_s"] = native;
  state.counters["sim_over_onednn"] = sim_seconds / native;
#else
  state.SetLabel("built without oneDNN: no native comparison");
#endif
}
}  // namespace

int main(int argc, char** argv) {
  // SystemC elaborates once per process: one benchmark per run, chosen by --timing-only.
  bool functional = true;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--timing-only") == 0)
      functional = false;
    else
      argv[kept++] = argv[i];
  }
  argc = kept;
  benchmark::RegisterBenchmark(
      functional ? "BM_QgemmSimulatedVsOneDnn2048" : "BM_QgemmTimingOnlyVsOneDnn2048",
      [functional](benchmark::State& state) { qgemm_vs_onednn(state, functional); })
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
