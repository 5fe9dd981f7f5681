#include "sim/report/report.h"

#include <algorithm>

namespace treesim::report {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0 : (a + b - 1) / b; }

double ratio(std::uint64_t part, std::uint64_t whole) {
  return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::vector<LevelReport> level_reports(const machine::MachineConfig& m, const std::vector<LinkStats>& stats) {
  std::vector<LevelReport> out;
  for (std::size_t l = 0; l < m.levels.size() && l < stats.size(); ++l)
    out.push_back({m.levels[l].name, stats[l]});
  return out;
}

// Summed in name order (dram, links, lm, mac), as the report has always summed them.
EnergyReport energy(const machine::MachineConfig& m, const RunStats& s) {
  const auto& en = *m.energy;
  EnergyReport e;
  e.mac = en.mac_int8_pj * static_cast<double>(s.macs);
  e.lm = en.lm_byte_pj * static_cast<double>(s.lm_bytes_accessed);
  e.dram = en.dram_byte_pj * static_cast<double>(s.dram_read_bytes + s.dram_write_bytes);
  for (std::size_t l = 0; l < m.levels.size() && l < s.levels.size(); ++l) {
    auto it = en.link_byte_pj.find(m.levels[l].name);
    if (it == en.link_byte_pj.end()) continue;
    e.links +=
        it->second * static_cast<double>(s.levels[l].down_delivered_bytes + s.levels[l].up_delivered_bytes);
  }
  e.total = 0;
  for (double part : {e.dram, e.links, e.lm, e.mac}) e.total += part;
  return e;
}

}  // namespace

Roofline roofline(const machine::MachineConfig& m, const RunStats& s) {
  Roofline r;
  const std::uint64_t pes = m.pe_count();
  r.bounds["mac"] = ceil_div(s.macs, pes * m.pe.mac.int8_macs_per_cycle);
  r.bounds["dpt_decoder"] = ceil_div(s.dpt_bytes, pes * m.pe.dpt_decoder.bytes_per_cycle);
  r.bounds["requant"] = ceil_div(s.requant_values, pes * m.pe.requant.values_per_cycle);
  r.bounds["copy"] = ceil_div(s.copy_bytes, pes * m.pe.copy.bytes_per_cycle);
  r.bounds["dram"] = ceil_div(s.dram_read_bytes + s.dram_write_bytes, m.dram.bytes_per_cycle);
  for (std::size_t l = 0; l < m.levels.size() && l < s.levels.size(); ++l) {
    r.bounds[m.levels[l].name + ".down"] =
        ceil_div(s.levels[l].down_busiest_port_bytes, m.levels[l].down_bytes_per_cycle);
    r.bounds[m.levels[l].name + ".up"] =
        ceil_div(s.levels[l].up_busiest_port_bytes, m.levels[l].up_bytes_per_cycle);
  }
  for (const auto& [name, cycles] : r.bounds) {
    if (r.resource.empty() || cycles > r.cycles) {
      r.cycles = cycles;
      r.resource = name;
    }
  }
  r.fraction_of_run = ratio(r.cycles, s.cycles);
  return r;
}

Report make_report(const machine::MachineConfig& m, const RunStats& s) {
  Report r;
  r.machine = m.name;
  r.kernel = s.kernel;
  r.clock_ghz = m.clock_ghz;
  r.cycles = s.cycles;
  r.seconds = static_cast<double>(s.cycles) / (m.clock_ghz * 1e9);
  r.roofline = roofline(m, s);
  r.dram_read_bytes = s.dram_read_bytes;
  r.dram_write_bytes = s.dram_write_bytes;
  r.levels = level_reports(m, s.levels);
  for (const auto& [name, busy] : s.resource_busy_cycles)
    r.units.push_back({name, busy, ratio(busy, s.cycles)});
  for (const auto& [kind, ks] : s.instructions) r.instructions.push_back({kind, ks.count, ks.cycles});
  r.work = {s.macs, s.dpt_bytes, s.requant_values, s.copy_bytes, s.lm_bytes_accessed};
  r.lm_peak_bytes_per_pe = s.lm_peak_bytes_per_pe;
  if (m.energy) r.energy_pj = energy(m, s);
  r.verify = s.verify;
  for (const auto& [name, p] : s.phases)
    r.phases.push_back({name, p.cycles, p.dram_read_bytes, p.dram_write_bytes, level_reports(m, p.levels)});
  r.info = s.info;
  r.fields = s.extra;
  return r;
}

}  // namespace treesim::report
