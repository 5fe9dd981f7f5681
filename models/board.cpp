#include "models/board.h"

#include <cstdlib>

namespace treesim::models {

void configure_time() {
  static bool done = false;  // SystemC allows setting the resolution once, before any sc_time
  if (done) return;
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  sc_core::sc_set_time_resolution(1, sc_core::SC_NS);
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  done = true;
}

sc_core::sc_time cycles_to_time(std::uint64_t cycles) {
  return sc_core::sc_time::from_value(cycles);  // resolution is 1 ns = one cycle
}

std::uint64_t time_to_cycles(const sc_core::sc_time& t) { return t.value(); }

Board::Board(const sc_core::sc_module_name& name, const machine::MachineConfig& config,
             const topology::Topology& topo)
    : sc_core::sc_module(name), config_(config), topo_(topo) {
  pes_.reserve(config.pe_count());
  build_children(config, topo, topo.board(), nodes_, own_pes_, pes_);
  SC_METHOD(drive);
}

std::uint64_t Board::now_cycles() const { return time_to_cycles(sc_core::sc_time_stamp()); }

void Board::drive() {
  if (done_ || !job_) return;
  // An exception escaping a SystemC process ends the whole simulation with a report; keep it and
  // rethrow it from simulate() instead.
  try {
    const std::uint64_t now = now_cycles();
    if (std::optional<std::uint64_t> next = job_(now)) {
      next_trigger(cycles_to_time(*next - now));
      return;
    }
  } catch (...) {
    error_ = std::current_exception();
  }
  done_ = true;  // no next trigger: the simulation ends when nothing else is pending
}

void Board::simulate() {
  sc_core::sc_start();
  if (error_) std::rethrow_exception(error_);
}

}  // namespace treesim::models
