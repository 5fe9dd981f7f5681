// Cycles and SystemC time. One machine cycle is one period of the board's clock; only these two
// functions turn one into the other (as VCML's clock_cycles does), so no module depends on the
// process-wide time resolution, which the library never sets.
#pragma once

#include <systemc>

#include <cstdint>

namespace treesim::models {

// A cycle is 1 ns of SystemC time; seconds in reports come from the machine's clock_ghz.
inline sc_core::sc_time cycle_period() { return sc_core::sc_time(1, sc_core::SC_NS); }
inline sc_core::sc_time cycles_to_time(std::uint64_t cycles) {
  return sc_core::sc_time::from_value(cycles * cycle_period().value());
}
inline std::uint64_t time_to_cycles(const sc_core::sc_time& t) { return t.value() / cycle_period().value(); }

}  // namespace treesim::models
