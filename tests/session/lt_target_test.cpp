// Any TLM-2.0 loosely-timed target can stand in for the built-in DRAM, including one that calls
// wait() in b_transport (the Accellera lt_synch_target pattern): a qgemm on mini takes the cycles
// the target's timing implies. Each test elaborates once (ctest runs each in its own process).
#include <gtest/gtest.h>

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <cstring>

#include "kernels/registry.h"
#include "models/clock.h"
#include "models/dram.h"
#include "session/run_problem.h"
#include "tests/configs.h"
#include "tests/test_support.h"

namespace treesim::session {
namespace {

using models::cycles_to_time;
using models::time_to_cycles;

// A memory with the built-in Dram's timing — one port of `rate` bytes per cycle serving accesses in
// the order they come, then `latency` cycles — that synchronises with its initiator in one of
// several ways instead of only annotating.
class SynchDram : public sc_core::sc_module {
 public:
  enum class Wait {
    kNone,         // annotates the whole delay, as lt_target
    kToArrival,    // waits until the access arrives, then annotates the rest
    kThroughPort,  // waits while its port streams the access, then annotates its latency
    kAll,          // waits until the access completes and returns no delay, as lt_synch_target
  };
  tlm_utils::simple_target_socket<SynchDram> socket;

  SynchDram(const sc_core::sc_module_name& name, std::uint64_t rate, std::uint64_t latency, Wait wait)
      : sc_core::sc_module(name),
        socket("socket"),
        rate_(rate),
        latency_(latency),
        wait_(wait),
        bytes_(8 << 20) {
    socket.register_b_transport(this, &SynchDram::b_transport);
    socket.register_get_direct_mem_ptr(this, &SynchDram::dmi);
    socket.register_transport_dbg(this, &SynchDram::debug);
  }
  std::uint64_t waits() const { return waits_; }

 private:
  void copy(tlm::tlm_generic_payload& t) {
    std::uint8_t* p = bytes_.data() + t.get_address();
    if (t.is_write()) std::memcpy(p, t.get_data_ptr(), t.get_data_length());
    if (t.is_read()) std::memcpy(t.get_data_ptr(), p, t.get_data_length());
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
    copy(t);
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const std::uint64_t arrival = time_to_cycles(now + delay);
    const std::uint64_t start = std::max(arrival, next_free_);
    next_free_ = start + (t.get_data_length() + rate_ - 1) / rate_;
    const std::uint64_t done = next_free_ + latency_;
    switch (wait_) {
      case Wait::kNone:
        delay = cycles_to_time(done) - now;
        return;
      case Wait::kToArrival:
        wait_for(delay);
        delay = cycles_to_time(done) - sc_core::sc_time_stamp();
        return;
      case Wait::kThroughPort:
        wait_for(cycles_to_time(next_free_) - now);
        delay = cycles_to_time(latency_);
        return;
      case Wait::kAll:
        wait_for(cycles_to_time(done) - now);
        delay = sc_core::SC_ZERO_TIME;
        return;
    }
  }
  void wait_for(const sc_core::sc_time& t) {
    if (t == sc_core::SC_ZERO_TIME) return;
    wait(t);
    ++waits_;
  }
  bool dmi(tlm::tlm_generic_payload&, tlm::tlm_dmi& d) {
    d.allow_read_write();
    d.set_dmi_ptr(bytes_.data());
    d.set_start_address(0);
    d.set_end_address(bytes_.size() - 1);
    d.set_read_latency(cycles_to_time(latency_));
    d.set_write_latency(cycles_to_time(latency_));
    return true;
  }
  unsigned int debug(tlm::tlm_generic_payload& t) {
    copy(t);
    return t.get_data_length();
  }
  const std::uint64_t rate_, latency_;
  const Wait wait_;
  std::uint64_t next_free_ = 0, waits_ = 0;
  std::vector<std::uint8_t> bytes_;
};

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
        other("other", m.dram.bytes_per_cycle, m.dram.latency_cycles + extra, wait),
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
  // A verified 96×80×200 qgemm's cycles, on the built-in Dram or on the other target.
  std::uint64_t qgemm_cycles(bool on_other) {
    route.select_other(on_other);
    const kernels::Kernel* k = kernels::find_kernel("qgemm");
    auto options =
        kernels::parse_options(k->options, {{"m", "96"}, {"n", "80"}, {"k", "200"}, {"seed", "3"}});
    auto problem = k->make_problem(options.value(), m);
    const kernels::Plan plan = plan_problem(*problem.value(), m).value();
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
