#include "sim/machine/machine_summary.h"

namespace treesim::machine {

MachineSummary summarize(const MachineConfig& c) {
  MachineSummary s;
  s.name = c.name;
  s.clock_ghz = c.clock_ghz;
  const double hz = c.clock_ghz * 1e9;
  for (std::size_t i = 0; i < c.levels.size(); ++i) {
    const LevelConfig& l = c.levels[i];
    LevelSummary ls;
    ls.name = l.name;
    ls.fanout = l.fanout;
    ls.units = c.units_at(i);
    ls.memory_bytes_per_unit = l.memory_bytes;
    ls.memory_bytes_total = l.memory_bytes * ls.units;
    const double parents = static_cast<double>(ls.units / l.fanout);
    ls.down_bytes_per_second = parents * static_cast<double>(l.down_bytes_per_cycle) * hz;
    ls.up_bytes_per_second = parents * static_cast<double>(l.up_bytes_per_cycle) * hz;
    ls.latency_cycles = l.latency_cycles;
    ls.reduce = l.reduce;
    s.levels.push_back(ls);
  }
  s.pes = c.pe_count();
  s.lm_bytes_per_pe = c.lm_bytes();
  s.lm_bytes_total = s.lm_bytes_per_pe * s.pes;
  s.peak_int8_ops_per_second =
      static_cast<double>(s.pes) * static_cast<double>(c.pe.mac.int8_macs_per_cycle) * 2.0 * hz;
  s.dram_bytes = c.dram.bytes;
  s.dram_bytes_per_second = static_cast<double>(c.dram.bytes_per_cycle) * hz;
  s.ops_per_dram_byte = s.peak_int8_ops_per_second / s.dram_bytes_per_second;
  return s;
}

}  // namespace treesim::machine
