#include "sim/report/report.h"

#include <algorithm>

#include <fmt/format.h>

namespace treesim::report {
namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return b == 0 ? 0 : (a + b - 1) / b; }

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
  return r;
}

std::map<std::string, double> energy_pj(const machine::MachineConfig& m, const RunStats& s) {
  std::map<std::string, double> e;
  if (!m.energy) return e;
  const auto& en = *m.energy;
  e["mac"] = en.mac_int8_pj * static_cast<double>(s.macs);
  e["lm"] = en.lm_byte_pj * static_cast<double>(s.lm_bytes_accessed);
  e["dram"] = en.dram_byte_pj * static_cast<double>(s.dram_read_bytes + s.dram_write_bytes);
  double links = 0;
  for (std::size_t l = 0; l < m.levels.size() && l < s.levels.size(); ++l) {
    auto it = en.link_byte_pj.find(m.levels[l].name);
    if (it == en.link_byte_pj.end()) continue;
    links +=
        it->second * static_cast<double>(s.levels[l].down_delivered_bytes + s.levels[l].up_delivered_bytes);
  }
  e["links"] = links;
  double total = 0;
  for (const auto& [k, v] : e) total += v;
  e["total"] = total;
  return e;
}

std::string summary_text(const machine::MachineConfig& m, const RunStats& s) {
  Roofline r = roofline(m, s);
  double seconds = static_cast<double>(s.cycles) / (m.clock_ghz * 1e9);
  std::string out = fmt::format("{} on {}: {} cycles ({:.3g} s at {} GHz)\n", s.kernel, m.name, s.cycles,
                                seconds, m.clock_ghz);
  double frac = s.cycles ? static_cast<double>(r.cycles) / static_cast<double>(s.cycles) : 0;
  out += fmt::format("  roofline bound {} cycles, set by {} ({:.1f}% of the run)\n", r.cycles, r.resource,
                     100 * frac);
  out += fmt::format("  DRAM read {} B, written {} B\n", s.dram_read_bytes, s.dram_write_bytes);
  for (std::size_t l = 0; l < m.levels.size() && l < s.levels.size(); ++l) {
    const LinkStats& ls = s.levels[l];
    out += fmt::format("  {:<4} down sent {} B, delivered {} B; up sent {} B, delivered {} B\n",
                       m.levels[l].name, ls.down_sent_bytes, ls.down_delivered_bytes, ls.up_sent_bytes,
                       ls.up_delivered_bytes);
  }
  for (const char* unit : {"mac", "dpt_decoder", "requant", "copy"}) {
    auto it = s.resource_busy_cycles.find(unit);
    std::uint64_t busy = it == s.resource_busy_cycles.end() ? 0 : it->second;
    if (busy) out += fmt::format("  {} busy {:.1f}%\n", unit, s.cycles ? 100.0 * busy / s.cycles : 0.0);
  }
  out += fmt::format("  LM peak {} B per PE\n", s.lm_peak_bytes_per_pe);
  if (s.verify) {
    if (s.verify->ok)
      out += "  verify: ok (bit-exact)\n";
    else
      out += fmt::format("  verify: FAILED, {} mismatches; first {}\n", s.verify->mismatches,
                         s.verify->first_mismatch);
  }
  return out;
}

}  // namespace treesim::report
