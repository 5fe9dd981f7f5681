// The simulator against a native host int8 GEMM, in one process. Everything runs through the run
// session (session/run_problem.h) on one elaboration of mncore-board, against oneDNN's u8·s8→s32
// matmul of the same size:
//   board_elaboration_ms              building the board's modules (a Simulation), once
//   timing_only_2048_over_onednn_1t   a timing-only 2048³ qgemm / oneDNN's 2048³ on one thread
//   full_2048_over_onednn_1t          the bit-exact 2048³ qgemm on one host thread / oneDNN, one thread
//   full_2048_over_onednn_nt          the same on N threads / oneDNN on N threads (N: the usable cores)
// A run is timed as Simulation::run (check the program, write the inputs into DRAM, simulate, read
// the outputs back): oneDNN's figure too starts with its operands in memory, so the drawing of the
// seeded operands (host work of the test problem) is left out; the session's whole time is printed
// beside it. Each time is the best of five runs after a first one (which maps the LMs' pages). The
// outputs of the 1-thread and N-thread runs must be equal. Printed as NAME=VALUE lines.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>

#include "host/host_pages.h"
#include "host/lane_pool.h"
#include "kernels/registry.h"
#include "session/run_problem.h"
#include "sim/machine/machine_file.h"

#ifdef TREESIM_HAVE_DNNL
#include <omp.h>

#include <dnnl.hpp>
#endif

namespace {

using namespace treesim;
using Clock = std::chrono::steady_clock;
constexpr std::uint64_t kSize = 2048;

double seconds_of(const std::function<void()>& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The best of `reps` runs of `f`, after one that is not counted.
double best_of(int reps, const std::function<void()>& f) {
  f();
  double best = 1e30;
  for (int r = 0; r < reps; ++r) best = std::min(best, seconds_of(f));
  return best;
}

// The same for a function that returns the seconds to count.
double best_measured(int reps, const std::function<double()>& f) {
  f();
  double best = 1e30;
  for (int r = 0; r < reps; ++r) best = std::min(best, f());
  return best;
}

#ifdef TREESIM_HAVE_DNNL
// oneDNN's u8×s8→s32 matmul of kSize³ on `threads` threads: the best of `reps` runs.
double onednn_seconds(int threads, int reps) {
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  omp_set_num_threads(threads);
  const auto n = static_cast<dnnl::memory::dim>(kSize);
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(eng);
  dnnl::memory::desc a_md({n, n}, dt::u8, tag::ab), b_md({n, n}, dt::s8, tag::ab),
      c_md({n, n}, dt::s32, tag::ab);
  dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), eng);
  dnnl::matmul mm(pd);
  std::vector<std::uint8_t> a(kSize * kSize, 3), b(kSize * kSize, 5);
  std::vector<std::int32_t> c(kSize * kSize);
  dnnl::memory am(a_md, eng, a.data()), bm(b_md, eng, b.data()), cm(c_md, eng, c.data());
  return best_of(reps, [&] {
    mm.execute(stream, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
    stream.wait();
  });
}
#endif

}  // namespace

int main() {
  host::reserve_huge_page_heap();  // the heap the treesim command runs with
  const machine::MachineConfig m =
      machine::load_machine_file(TREESIM_SOURCE_DIR "/configs/mncore-board.yaml");
  const unsigned cores = host::LanePool::usable_cores();
  std::unique_ptr<models::Simulation> sim;
  const double elaboration = seconds_of([&] { sim = std::make_unique<models::Simulation>(m); });

  const kernels::Kernel& qgemm = *kernels::find_kernel("qgemm");
  const std::string size = std::to_string(kSize);
  const kernels::Options options =
      kernels::parse_options(qgemm.options, {{"m", size}, {"n", size}, {"k", size}, {"dtype-a", "u8"}})
          .value();
  std::unique_ptr<kernels::Problem> problem = std::move(qgemm.make_problem(options, m).value());
  const kernels::Plan plan = session::plan_problem(*problem, m).value();
  auto run = [&](bool functional) {
    session::RunOptions o;
    o.kernel = "qgemm";
    o.simulation.functional = functional;
    o.simulation.read_back_stored_only = true;
    return session::run_problem(*problem, plan, *sim, o).value();
  };
  const double timing_only = best_measured(5, [&] { return run(false).run.simulation_seconds; });
  models::DramImage one_thread, many_threads;
  double session_1t = 0, session_nt = 0;
  // The best Simulation::run of a full run on `threads` threads; its outputs and the session's
  // whole time go to `dram` and `session`.
  auto full = [&](unsigned threads, models::DramImage& dram, double& session) {
    sim->set_threads(threads);
    return best_measured(5, [&] {
      double sim_seconds = 0;
      session = seconds_of([&] {
        session::Outcome out = run(true);
        sim_seconds = out.run.simulation_seconds;
        dram = std::move(out.dram);
      });
      return sim_seconds;
    });
  };
  const double full_1t = full(1, one_thread, session_1t);
  const double full_nt = full(cores, many_threads, session_nt);
  if (one_thread != many_threads) {
    std::fprintf(stderr, "bench_qgemm: the outputs of 1 and %u threads differ\n", cores);
    return 1;
  }
  std::printf("board_elaboration_ms=%.3f\n", elaboration * 1e3);
  std::printf("timing_only_2048_ms=%.2f\nfull_2048_1t_ms=%.1f\nfull_2048_nt_ms=%.1f\nthreads=%u\n",
              timing_only * 1e3, full_1t * 1e3, full_nt * 1e3, cores);
  std::printf("full_2048_1t_session_ms=%.1f\nfull_2048_nt_session_ms=%.1f\n", session_1t * 1e3,
              session_nt * 1e3);
#ifdef TREESIM_HAVE_DNNL
  const double dnnl_1t = onednn_seconds(1, 5), dnnl_nt = onednn_seconds(static_cast<int>(cores), 5);
  std::printf("onednn_2048_1t_ms=%.1f\nonednn_2048_nt_ms=%.1f\n", dnnl_1t * 1e3, dnnl_nt * 1e3);
  std::printf("timing_only_2048_over_onednn_1t=%.3f\n", timing_only / dnnl_1t);
  std::printf("full_2048_over_onednn_1t=%.2f\n", full_1t / dnnl_1t);
  std::printf("full_2048_over_onednn_nt=%.2f\n", full_nt / dnnl_nt);
#else
  std::printf("# built without oneDNN: no ratios\n");
#endif
  return 0;
}
