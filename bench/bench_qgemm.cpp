// The simulator against a native host int8 GEMM, in one process. Everything runs through the run
// session (tools/session/run_problem.h) on one elaboration of mncore-board, against oneDNN's u8·s8→s32
// matmul of the same size:
//   board_elaboration_ms              building the board's modules (a Simulation), once
//   timing_only_2048_over_onednn_1t   a timing-only 2048³ qgemm / oneDNN's 2048³ on one thread
//   full_2048_over_onednn_1t          the bit-exact 2048³ qgemm on one host thread / oneDNN, one thread
//   full_2048_over_onednn_nt          the same on N threads / oneDNN on N threads (N: the usable cores)
// A run is timed as Simulation::run (check the program, write the inputs into DRAM, simulate, read
// the outputs back): oneDNN's figure too starts with its operands in memory, so the drawing of the
// seeded operands (host work of the test problem) is left out; the session's whole time is printed
// beside it. A full run and oneDNN's GEMM alternate, so that both meet the same moments of a busy
// host; each figure is the best of seven after a first round (which maps the LMs' pages). The
// outputs of the 1-thread and N-thread runs must be equal. Printed as NAME=VALUE lines.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>

#include "models/host/host_pages.h"
#include "models/host/lane_pool.h"
#include "kernels/registry.h"
#include "tools/session/run_problem.h"
#include "sim/machine/machine_file.h"

#ifdef TREESIM_HAVE_DNNL
#include <omp.h>

#include <dnnl.hpp>
#endif

namespace {

using namespace treesim;
using Clock = std::chrono::steady_clock;
constexpr std::uint64_t kSize = 2048;
constexpr int kRounds = 7;  // measured rounds of a comparison, after one that is not counted

double seconds_of(const std::function<void()>& f) {
  const auto t0 = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The best of `reps` runs of `f`, which returns the seconds to count, after one that is not counted.
double best_measured(int reps, const std::function<double()>& f) {
  f();
  double best = 1e30;
  for (int r = 0; r < reps; ++r) best = std::min(best, f());
  return best;
}

#ifdef TREESIM_HAVE_DNNL
// oneDNN's u8×s8→s32 matmul of kSize³, set up once; each call runs it once on `threads` threads.
class OneDnnGemm {
 public:
  OneDnnGemm()
      : a_(kSize * kSize, 3),
        b_(kSize * kSize, 5),
        c_(kSize * kSize),
        eng_(dnnl::engine::kind::cpu, 0),
        stream_(eng_) {
    using dt = dnnl::memory::data_type;
    using tag = dnnl::memory::format_tag;
    const auto n = static_cast<dnnl::memory::dim>(kSize);
    dnnl::memory::desc a_md({n, n}, dt::u8, tag::ab), b_md({n, n}, dt::s8, tag::ab),
        c_md({n, n}, dt::s32, tag::ab);
    mm_ = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_md, c_md), eng_));
    am_ = dnnl::memory(a_md, eng_, a_.data());
    bm_ = dnnl::memory(b_md, eng_, b_.data());
    cm_ = dnnl::memory(c_md, eng_, c_.data());
  }
  double seconds(int threads) {
    omp_set_num_threads(threads);
    return seconds_of([&] {
      mm_.execute(stream_, {{DNNL_ARG_SRC, am_}, {DNNL_ARG_WEIGHTS, bm_}, {DNNL_ARG_DST, cm_}});
      stream_.wait();
    });
  }

 private:
  std::vector<std::uint8_t> a_, b_;
  std::vector<std::int32_t> c_;
  dnnl::engine eng_;
  dnnl::stream stream_;
  dnnl::matmul mm_;
  dnnl::memory am_, bm_, cm_;
};
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
  const kernels::Plan plan = kernels::plan_problem(*problem, m).value();
  auto run = [&](bool functional) {
    session::RunOptions o;
    o.kernel = "qgemm";
    o.simulation.functional = functional;
    o.simulation.read_back_stored_only = true;
    return session::run_problem(*problem, plan, *sim, o).value();
  };
  const double timing_only = best_measured(5, [&] { return run(false).run.simulation_seconds; });
#ifdef TREESIM_HAVE_DNNL
  OneDnnGemm onednn;
#endif
  // Rounds of one full run on `threads` threads then one oneDNN GEMM on as many: a host that slows
  // down for a while slows both. The best of each over the rounds after a first; the outputs and
  // the session's whole time of the best run go to `dram` and `session`.
  struct Best {
    double sim = 1e30, onednn = 1e30;
  };
  auto full = [&](unsigned threads, models::DramImage& dram, double& session) {
    sim->set_threads(threads);
    Best best;
    for (int round = 0; round <= kRounds; ++round) {
      double sim_seconds = 0;
      models::DramImage out_dram;
      const double whole = seconds_of([&] {
        session::Outcome out = run(true);
        sim_seconds = out.run.simulation_seconds;
        out_dram = std::move(out.dram);
      });
      double onednn_seconds = 1e30;
#ifdef TREESIM_HAVE_DNNL
      onednn_seconds = onednn.seconds(static_cast<int>(threads));
#endif
      if (round == 0) continue;
      if (sim_seconds < best.sim) best.sim = sim_seconds, session = whole, dram = std::move(out_dram);
      best.onednn = std::min(best.onednn, onednn_seconds);
    }
    return best;
  };
  models::DramImage one_thread, many_threads;
  double session_1t = 0, session_nt = 0;
  const Best full_1t = full(1, one_thread, session_1t);
  const Best full_nt = full(cores, many_threads, session_nt);
  if (one_thread != many_threads) {
    std::fprintf(stderr, "bench_qgemm: the outputs of 1 and %u threads differ\n", cores);
    return 1;
  }
  std::printf("board_elaboration_ms=%.3f\n", elaboration * 1e3);
  std::printf("timing_only_2048_ms=%.2f\nfull_2048_1t_ms=%.1f\nfull_2048_nt_ms=%.1f\nthreads=%u\n",
              timing_only * 1e3, full_1t.sim * 1e3, full_nt.sim * 1e3, cores);
  std::printf("full_2048_1t_session_ms=%.1f\nfull_2048_nt_session_ms=%.1f\n", session_1t * 1e3,
              session_nt * 1e3);
#ifdef TREESIM_HAVE_DNNL
  std::printf("onednn_2048_1t_ms=%.1f\nonednn_2048_nt_ms=%.1f\n", full_1t.onednn * 1e3, full_nt.onednn * 1e3);
  std::printf("timing_only_2048_over_onednn_1t=%.3f\n", timing_only / full_1t.onednn);
  std::printf("full_2048_over_onednn_1t=%.2f\n", full_1t.sim / full_1t.onednn);
  std::printf("full_2048_over_onednn_nt=%.2f\n", full_nt.sim / full_nt.onednn);
#else
  std::printf("# built without oneDNN: no ratios\n");
#endif
  return 0;
}
