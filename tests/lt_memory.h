// A test-only TLM-2.0 loosely-timed memory with its own rate and latency: an access of n bytes
// streams ceil(n / rate) cycles from max(arrival, next free) — one port, served in the order the
// accesses come — then `latency` cycles. It declares its latency in its DMI descriptor (when it
// offers DMI), and synchronises with its initiator in one of several ways.
#pragma once

#include <tlm_utils/simple_target_socket.h>
#include <systemc>
#include <tlm>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "models/clock.h"

namespace treesim::testing {

class LtMemory : public sc_core::sc_module {
 public:
  enum class Wait {
    kNone,         // annotates the whole delay, as the TLM examples' lt_target
    kToArrival,    // waits until the access arrives, then annotates the rest
    kThroughPort,  // waits while its port streams the access, then annotates its latency
    kAll,          // waits until the access completes and returns no delay, as lt_synch_target
  };
  tlm_utils::simple_target_socket<LtMemory> socket;

  LtMemory(const sc_core::sc_module_name& name, std::uint64_t latency, std::uint64_t rate,
           Wait wait = Wait::kNone, bool dmi = true)
      : sc_core::sc_module(name),
        socket("socket"),
        latency_(latency),
        rate_(rate),
        wait_(wait),
        offer_dmi_(dmi),
        bytes_(8 << 20) {
    socket.register_b_transport(this, &LtMemory::b_transport);
    socket.register_get_direct_mem_ptr(this, &LtMemory::dmi);
    socket.register_transport_dbg(this, &LtMemory::debug);
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
    using models::cycles_to_time;
    copy(t);
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const std::uint64_t arrival = models::time_to_cycles(now + delay);
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
    if (!offer_dmi_) return false;
    d.allow_read_write();
    d.set_dmi_ptr(bytes_.data());
    d.set_start_address(0);
    d.set_end_address(bytes_.size() - 1);
    d.set_read_latency(models::cycles_to_time(latency_));
    d.set_write_latency(models::cycles_to_time(latency_));
    return true;
  }
  unsigned int debug(tlm::tlm_generic_payload& t) {
    copy(t);
    return t.get_data_length();
  }
  const std::uint64_t latency_, rate_;
  const Wait wait_;
  const bool offer_dmi_;
  std::uint64_t next_free_ = 0, waits_ = 0;
  std::vector<std::uint8_t> bytes_;
};

}  // namespace treesim::testing
