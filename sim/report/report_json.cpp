// The only report file that knows nlohmann-json.
#include <nlohmann/json.hpp>

#include "sim/report/report.h"

namespace treesim::report {
namespace {

using json = nlohmann::ordered_json;

json levels_json(const machine::MachineConfig& m, const std::vector<LinkStats>& stats) {
  json levels = json::object();
  for (std::size_t l = 0; l < m.levels.size() && l < stats.size(); ++l) {
    const LinkStats& ls = stats[l];
    levels[m.levels[l].name] = {{"down_sent_bytes", ls.down_sent_bytes},
                                {"down_delivered_bytes", ls.down_delivered_bytes},
                                {"up_sent_bytes", ls.up_sent_bytes},
                                {"up_delivered_bytes", ls.up_delivered_bytes},
                                {"busiest_down_port_bytes", ls.down_busiest_port_bytes},
                                {"busiest_up_port_bytes", ls.up_busiest_port_bytes}};
  }
  return levels;
}

}  // namespace

std::string report_json(const machine::MachineConfig& m, const RunStats& s) {
  Roofline r = roofline(m, s);
  json j;
  j["schema_version"] = kSchemaVersion;
  j["machine"] = m.name;
  j["kernel"] = s.kernel;
  j["cycles"] = s.cycles;
  j["seconds"] = static_cast<double>(s.cycles) / (m.clock_ghz * 1e9);
  j["roofline"] = {{"cycles", r.cycles}, {"resource", r.resource}, {"bounds", r.bounds}};
  j["dram"] = {{"read_bytes", s.dram_read_bytes}, {"write_bytes", s.dram_write_bytes}};
  j["levels"] = levels_json(m, s.levels);
  json units = json::object();
  for (const auto& [name, busy] : s.resource_busy_cycles) {
    double util = s.cycles ? static_cast<double>(busy) / static_cast<double>(s.cycles) : 0.0;
    units[name] = {{"busy_cycles", busy}, {"utilization", util}};
  }
  j["units"] = units;
  json instrs = json::object();
  for (const auto& [kind, ks] : s.instructions) instrs[kind] = {{"count", ks.count}, {"cycles", ks.cycles}};
  j["instructions"] = instrs;
  j["work"] = {{"macs", s.macs},
               {"dpt_bytes", s.dpt_bytes},
               {"requant_values", s.requant_values},
               {"copy_bytes", s.copy_bytes},
               {"lm_bytes_accessed", s.lm_bytes_accessed}};
  j["lm_peak_bytes_per_pe"] = s.lm_peak_bytes_per_pe;
  if (m.energy) j["energy_pj"] = energy_pj(m, s);
  if (s.verify)
    j["verify"] = {{"ok", s.verify->ok},
                   {"mismatches", s.verify->mismatches},
                   {"first_mismatch", s.verify->first_mismatch}};
  // Kernel-specific counts (e.g. place's gather_cycles) sit at the top level beside the common keys.
  if (!s.phases.empty()) {
    json phases = json::object();
    for (const auto& [name, p] : s.phases)
      phases[name] = {{"cycles", p.cycles},
                      {"dram", {{"read_bytes", p.dram_read_bytes}, {"write_bytes", p.dram_write_bytes}}},
                      {"levels", levels_json(m, p.levels)}};
    j["phases"] = phases;
  }
  if (!s.info.empty()) j["info"] = s.info;
  for (const auto& [key, value] : s.extra)
    if (!j.contains(key)) j[key] = value;
  return j.dump(2) + "\n";
}

}  // namespace treesim::report
