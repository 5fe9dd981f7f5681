#include "sim/timing/machine_summary.h"

#include "sim/timing/cost_model.h"

namespace treesim::timing {

MachineSummary summarize(const machine::MachineConfig& c) {
  const Peaks peaks = CostModel(c).peaks();
  const double hz = peaks.cycles_per_second;
  MachineSummary s;
  s.name = c.name;
  s.clock_ghz = c.clock_ghz;
  for (std::size_t i = 0; i < c.levels.size(); ++i) {
    const machine::LevelConfig& l = c.levels[i];
    LevelSummary ls;
    ls.name = l.name;
    ls.fanout = l.fanout;
    ls.units = c.units_at(i);
    ls.memory_bytes_per_unit = l.memory_bytes;
    ls.memory_bytes_total = l.memory_bytes * ls.units;
    ls.down_bytes_per_second = static_cast<double>(peaks.level_down_bytes_per_cycle[i]) * hz;
    ls.up_bytes_per_second = static_cast<double>(peaks.level_up_bytes_per_cycle[i]) * hz;
    ls.latency_cycles = peaks.latency_cycles[i];
    ls.reduce = l.reduce;
    s.levels.push_back(ls);
  }
  s.pes = c.pe_count();
  s.lm_bytes_per_pe = c.lm_bytes();
  s.lm_bytes_total = s.lm_bytes_per_pe * s.pes;
  s.peak_int8_ops_per_second = static_cast<double>(peaks.int8_macs_per_cycle) * 2.0 * hz;
  s.dram_channels = c.dram_channels();
  s.dram_bytes = c.dram.bytes * s.dram_channels;
  if (c.dram.per_level) {
    s.dram_channel_level = c.levels[*c.dram.per_level].name;
    s.dram_placement = c.dram.placement;
    if (c.dram.placement == machine::DramPlacement::kInterleave)
      s.dram_interleave_bytes = c.dram.interleave_bytes;
  }
  if (c.dram.banked) {
    s.dram_model = "banked";
    s.dram_memspec =
        c.dram.banked->memspec.name +
        (c.dram.banked->memspec.standard.empty() ? "" : " (" + c.dram.banked->memspec.standard + ")");
  }
  s.dram_latency_cycles = c.dram.latency_cycles;
  s.path_latency_cycles = CostModel(c).path_latency();
  s.pe_instruction_step_cycles = c.pe.instruction_step_cycles;
  s.dram_bytes_per_second = static_cast<double>(peaks.dram_bytes_per_cycle) * hz;
  s.ops_per_dram_byte = s.peak_int8_ops_per_second / s.dram_bytes_per_second;
  return s;
}

}  // namespace treesim::timing
