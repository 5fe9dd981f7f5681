// The `--report` document: a renderer of a Report, and the only report file that knows nlohmann-json.
#include <nlohmann/json.hpp>

#include "sim/report/report.h"

namespace treesim::report {
namespace {

using json = nlohmann::ordered_json;

json levels_json(const std::vector<LevelReport>& levels) {
  json out = json::object();
  for (const LevelReport& level : levels) {
    const timing::LinkWork& ls = level.traffic;
    out[level.name] = {{"down_sent_bytes", ls.down_sent_bytes},
                       {"down_delivered_bytes", ls.down_delivered_bytes},
                       {"up_sent_bytes", ls.up_sent_bytes},
                       {"up_delivered_bytes", ls.up_delivered_bytes},
                       {"busiest_down_port_bytes", ls.busiest_down_port_bytes},
                       {"busiest_up_port_bytes", ls.busiest_up_port_bytes}};
    // Per parent port (whole runs only): which units' links worked and which idled.
    auto ports = [](const std::vector<PortStats>& v) {
      json busy = json::array(), bytes = json::array();
      for (const PortStats& p : v) {
        busy.push_back(p.busy_cycles);
        bytes.push_back(p.bytes);
      }
      return json{{"busy_cycles", busy}, {"bytes", bytes}};
    };
    if (!level.ports.down.empty() || !level.ports.up.empty())
      out[level.name]["ports"] = {{"down", ports(level.ports.down)}, {"up", ports(level.ports.up)}};
  }
  return out;
}

}  // namespace

std::string to_json(const Report& r) {
  json j;
  j["schema_version"] = r.schema_version;
  j["machine"] = r.machine;
  j["kernel"] = r.kernel;
  j["functional"] = r.functional;
  j["cycles"] = r.cycles;
  j["seconds"] = r.seconds;
  j["roofline"] = {
      {"cycles", r.roofline.cycles}, {"resource", r.roofline.resource}, {"bounds", r.roofline.bounds}};
  if (const auto& p = r.critical_path) {
    json cycles = json::object();
    for (const auto& [resource, n] : p->by_resource) cycles[resource] = n;
    j["critical_path"] = {{"summary", timing::path_summary(*p)},
                          {"cycles", cycles},
                          {"stretches", p->stretches.size()},
                          {"after_last_mac_cycles", p->after_last_mac}};
  }
  j["dram"] = {{"read_bytes", r.work.dram_read_bytes}, {"write_bytes", r.work.dram_write_bytes}};
  if (!r.dram_channels.empty()) {
    json channels = json::array();
    for (const DramChannelStats& c : r.dram_channels)
      channels.push_back(
          {{"read_bytes", c.read_bytes}, {"write_bytes", c.write_bytes}, {"busy_cycles", c.busy_cycles}});
    j["dram"]["channels"] = channels;
  }
  if (const auto& b = r.dram_banks) {
    j["dram"]["banked"] = {{"reads", b->reads},
                           {"writes", b->writes},
                           {"row_hits", b->row_hits},
                           {"row_misses", b->row_misses},
                           {"row_conflicts", b->row_conflicts},
                           {"row_hit_rate", b->row_hit_rate()},
                           {"activates", b->activates},
                           {"precharges", b->precharges},
                           {"refreshes", b->refreshes},
                           {"energy_pj",
                            {{"activate", b->activate_pj},
                             {"read", b->read_pj},
                             {"write", b->write_pj},
                             {"refresh", b->refresh_pj}}}};
  }
  j["levels"] = levels_json(r.levels);
  json units = json::object();
  for (const UnitReport& u : r.units) {
    units[u.name] = {{"busy_cycles", u.busy_cycles}, {"utilization", u.utilization}};
    if (u.pe_busy_min_max)
      units[u.name]["pe_busy_cycles"] = {{"min", u.pe_busy_min_max->first},
                                         {"max", u.pe_busy_min_max->second}};
  }
  j["units"] = units;
  json instrs = json::object();
  for (const KindReport& k : r.instructions)
    instrs[k.kind] = {{"count", k.count}, {"busy_cycles", k.busy_cycles}, {"span_cycles", k.span_cycles}};
  j["instructions"] = instrs;
  j["work"] = {{"macs", r.work.macs},
               {"ternary_macs", r.work.ternary_macs()},
               {"sparse_macs", r.work.sparse_macs},
               {"sparse_items", r.work.sparse_items()},
               {"dpt_bytes", r.work.dpt_bytes()},
               {"base3_bytes", r.work.base3_bytes()},
               {"requant_values", r.work.requant_values()},
               {"copy_bytes", r.work.copy_bytes()}};
  for (const auto& [key, items] : r.unit_work) j["work"][key] = items;
  j["work"]["lm_bytes_accessed"] = r.work.lm_bytes;
  if (r.useful_macs) {
    j["work"]["useful_macs"] = *r.useful_macs;
    j["work"]["padding_macs"] = r.work.macs > *r.useful_macs ? r.work.macs - *r.useful_macs : 0;
  }
  j["lm_peak_bytes_per_pe"] = r.lm_peak_bytes_per_pe;
  if (r.energy_pj) {
    const EnergyReport& e = *r.energy_pj;
    j["energy_pj"] = {{"dram", e.dram}, {"links", e.links}, {"lm", e.lm}, {"mac", e.mac}};
    if (e.vector) j["energy_pj"]["vector"] = *e.vector;
    j["energy_pj"]["total"] = e.total;
  }
  if (r.verify)
    j["verify"] = {{"ok", r.verify->ok},
                   {"mismatches", r.verify->mismatches},
                   {"first_mismatch", r.verify->first_mismatch}};
  if (!r.phases.empty()) {
    json phases = json::object();
    for (const PhaseReport& p : r.phases) {
      phases[p.name] = {
          {"cycles", p.cycles},
          {"dram", {{"read_bytes", p.work.dram_read_bytes}, {"write_bytes", p.work.dram_write_bytes}}},
          {"levels", levels_json(p.levels)}};
      if (p.lm_bytes_per_pe) phases[p.name]["lm_bytes_per_pe"] = *p.lm_bytes_per_pe;
    }
    j["phases"] = phases;
  }
  if (r.sparse) {
    const SparseReport& sp = *r.sparse;
    json storage = json::object();
    for (const auto& [name, bytes] : sp.storage_bytes) storage[name] = bytes;
    j["sparse"] = {{"nnz", sp.nnz},
                   {"stored_entries", sp.stored_entries},
                   {"pes", sp.pes},
                   {"grid", {sp.grid_rows, sp.grid_cols}},
                   {"pe_nnz", {{"min", sp.pe_nnz_min}, {"mean", sp.pe_nnz_mean}, {"max", sp.pe_nnz_max}}},
                   {"imbalance", sp.imbalance},
                   {"wasted_mac_slots", sp.wasted_mac_slots},
                   {"pe_walk_items", {{"mean", sp.pe_items_mean}, {"max", sp.pe_items_max}}},
                   {"storage_bytes", storage}};
  }
  if (!r.info.empty()) j["info"] = r.info;
  // Kernel-specific counts (e.g. place's gather_cycles) sit at the top level beside the common keys,
  // which they never replace.
  for (const auto& [key, value] : r.fields)
    if (!j.contains(key)) j[key] = value;
  return j.dump(2) + "\n";
}

}  // namespace treesim::report
