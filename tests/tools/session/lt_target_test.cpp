// Any TLM-2.0 loosely-timed target can stand in for the built-in DRAM, including one that calls
// wait() in b_transport (the Accellera lt_synch_target pattern): a qgemm on mini takes the cycles
// the target's timing implies. Each test elaborates once (ctest runs each in its own process).
#include <gtest/gtest.h>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <cstring>
#include <fstream>

#include "kernels/registry.h"
#include "models/clock.h"
#include "models/dram.h"
#include "tools/session/run_problem.h"
#include "tests/configs.h"
#include "tests/lt_memory.h"
#include "tests/test_support.h"

namespace treesim::session {
namespace {

using SynchDram = testing::LtMemory;

// An LT interconnect with two memories behind it, one of them selected: lets one elaboration run
// the same program against the built-in Dram and against another target.
class Switch : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Switch> in;
  tlm_utils::simple_initiator_socket<Switch> to_dram, to_other;
  explicit Switch(const sc_core::sc_module_name& name)
      : sc_core::sc_module(name), in("in"), to_dram("to_dram"), to_other("to_other") {
    in.register_b_transport(this, &Switch::b_transport);
    in.register_get_direct_mem_ptr(this, &Switch::dmi);
    in.register_transport_dbg(this, &Switch::debug);
    to_dram.register_invalidate_direct_mem_ptr(this, &Switch::invalidate);
    to_other.register_invalidate_direct_mem_ptr(this, &Switch::invalidate);
  }
  void select_other(bool other) {
    other_ = other;
    in->invalidate_direct_mem_ptr(0, UINT64_MAX);
  }

 private:
  tlm_utils::simple_initiator_socket<Switch>& out() { return other_ ? to_other : to_dram; }
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) { out()->b_transport(t, delay); }
  bool dmi(tlm::tlm_generic_payload& t, tlm::tlm_dmi& d) { return out()->get_direct_mem_ptr(t, d); }
  unsigned int debug(tlm::tlm_generic_payload& t) { return out()->transport_dbg(t); }
  void invalidate(sc_dt::uint64 lo, sc_dt::uint64 hi) { in->invalidate_direct_mem_ptr(lo, hi); }
  bool other_ = false;
};

// One elaboration of mini whose DRAM socket reaches the built-in Dram or a SynchDram of the
// machine's DRAM rate and its latency plus `extra`, through a Switch.
struct Bench {
  machine::MachineConfig m = testing::config("mini");
  models::Simulation sim;
  models::Dram dram;
  SynchDram other;
  Switch route;
  Bench(SynchDram::Wait wait, std::uint64_t extra)
      : sim(m, unbound()),
        dram("dram", m),
        other("other", m.dram.latency_cycles + extra, m.dram.bytes_per_cycle, wait),
        route("route") {
    sim.board().dram_socket.bind(route.in);
    route.to_dram.bind(dram.socket);
    route.to_other.bind(other.socket);
  }
  static models::SimulationConfig unbound() {
    models::SimulationConfig c;
    c.bind_dram = false;
    return c;
  }
  // A verified 96×80×200 qgemm's cycles, on the built-in Dram or on the other target. The plan is
  // fixed, with K in 8 steps of 25 and two buffers, where DRAM does not bind: this target rounds
  // each access (each row of an A tile) up to a whole cycle, and the built-in Dram a transfer's
  // accesses together, so where DRAM binds they differ by that rounding.
  std::uint64_t qgemm_cycles(bool on_other) {
    route.select_other(on_other);
    const kernels::Kernel* k = kernels::find_kernel("qgemm");
    auto options =
        kernels::parse_options(k->options, {{"m", "96"}, {"n", "80"}, {"k", "200"}, {"seed", "3"}});
    auto problem = k->make_problem(options.value(), m);
    const std::string path = testing::temp_path("lt-target-plan.yaml");
    std::ofstream(path) << "kernel: qgemm\nmachine: mini\nm: 96\nn: 80\nk: 200\n"
                           "split: {M: [MAB, PE], N: [L1B], K: []}\n"
                           "m_passes_factor: 1\npass_splits: 0\nmin_k_steps: 8\nbuffers: 2\n";
    const kernels::Plan plan = problem.value()->plan_from_file(path, m).value();
    RunOptions run;
    run.verify = true;
    const Outcome out = run_problem(*problem.value(), plan, sim, run).value();
    EXPECT_TRUE(out.stats.verify && out.stats.verify->ok);
    return out.stats.cycles;
  }
};

TEST(LtTarget, ATargetThatAnnotatesGivesTheBuiltInDramsCycles) {
  Bench b(SynchDram::Wait::kNone, 0);
  const std::uint64_t built_in = b.qgemm_cycles(false);
  EXPECT_EQ(b.qgemm_cycles(true), built_in);
}

TEST(LtTarget, ATargetThatWaitsForEachAccessToArriveGivesTheSameCycles) {
  Bench b(SynchDram::Wait::kToArrival, 0);
  const std::uint64_t built_in = b.qgemm_cycles(false);
  EXPECT_EQ(b.qgemm_cycles(true), built_in);
  EXPECT_GT(b.other.waits(), 0u);  // it did wait: the sequencer followed it
}

TEST(LtTarget, ATargetThatWaitsWhileItsPortStreamsGivesTheSameCycles) {
  Bench b(SynchDram::Wait::kThroughPort, 0);
  const std::uint64_t built_in = b.qgemm_cycles(false);
  EXPECT_EQ(b.qgemm_cycles(true), built_in);
  EXPECT_GT(b.other.waits(), 0u);
}

TEST(LtTarget, AWaitingTargetWithMoreLatencyTakesMoreCycles) {
  Bench b(SynchDram::Wait::kThroughPort, 50);
  const std::uint64_t built_in = b.qgemm_cycles(false);
  EXPECT_GT(b.qgemm_cycles(true), built_in);
}

TEST(LtTarget, ATargetThatWaitsThroughItsLatencyIsNeverFaster) {
  // lt_synch_target's pattern: blocking transport returns when the access is complete, so the
  // next access cannot arrive before that; the sequencer's overlapped loads serialise on it.
  Bench b(SynchDram::Wait::kAll, 0);
  const std::uint64_t built_in = b.qgemm_cycles(false);
  EXPECT_GE(b.qgemm_cycles(true), built_in);
}

TEST(LtTarget, TheQuantumDoesNotChangeTheCycles) {
  Bench b(SynchDram::Wait::kThroughPort, 0);
  const std::uint64_t built_in = b.qgemm_cycles(false);
  for (std::uint64_t quantum : {1, 7, 100000}) {
    b.sim.board().sequencer().set_quantum_cycles(quantum);
    EXPECT_EQ(b.qgemm_cycles(false), built_in) << quantum;
    EXPECT_EQ(b.qgemm_cycles(true), built_in) << quantum;
  }
}

}  // namespace
}  // namespace treesim::session
