#include "sim/report/report.h"

#include <algorithm>

#include "sim/timing/cost_model.h"

namespace treesim::report {
namespace {

double ratio(std::uint64_t part, std::uint64_t whole) {
  return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::vector<LevelReport> level_reports(const machine::MachineConfig& m, const timing::Work& work,
                                       const std::vector<LevelPorts>& ports = {}) {
  std::vector<LevelReport> out;
  for (std::size_t l = 0; l < m.levels.size() && l < work.levels.size(); ++l)
    out.push_back({m.levels[l].name, work.levels[l], l < ports.size() ? ports[l] : LevelPorts{}});
  return out;
}

// Summed in name order (dram, links, lm, mac, vector), as the report has always summed them.
EnergyReport energy(const machine::MachineConfig& m, const RunStats& s) {
  const auto& en = *m.energy;
  EnergyReport e;
  const timing::Work& w = s.work;
  // The MACs the problem needs: those issued on padding are the plan's, not the machine's cost.
  e.mac = en.mac_int8_pj * static_cast<double>(s.useful_macs.value_or(w.macs));
  e.lm = en.lm_byte_pj * static_cast<double>(w.lm_bytes);
  e.dram = en.dram_byte_pj * static_cast<double>(w.dram_bytes());
  for (std::size_t l = 0; l < m.levels.size() && l < w.levels.size(); ++l) {
    auto it = en.link_byte_pj.find(m.levels[l].name);
    if (it == en.link_byte_pj.end()) continue;
    e.links +=
        it->second * static_cast<double>(w.levels[l].down_delivered_bytes + w.levels[l].up_delivered_bytes);
  }
  if (m.pe.vector && en.vector_lane_cycle_pj)
    e.vector = *en.vector_lane_cycle_pj * static_cast<double>(w[timing::Datapath::kVector]);
  e.total = 0;
  for (double part : {e.dram, e.links, e.lm, e.mac, e.vector.value_or(0.0)}) e.total += part;
  return e;
}

}  // namespace

Roofline roofline(const machine::MachineConfig& m, const RunStats& s) {
  const timing::Roofline t = timing::CostModel(m).roofline(s.work);
  Roofline r;
  r.cycles = t.cycles;
  r.resource = t.resource;
  r.bounds = t.bounds;
  r.fraction_of_run = ratio(r.cycles, s.cycles);
  return r;
}

namespace {

SparseReport sparse_report(const SparseStats& s) {
  SparseReport r;
  r.nnz = s.nnz;
  r.pes = s.pes, r.grid_rows = s.grid_rows, r.grid_cols = s.grid_cols;
  std::uint64_t max_entries = 0;
  for (std::uint64_t e : s.pe_entries) r.stored_entries += e, max_entries = std::max(max_entries, e);
  if (!s.pe_nnz.empty()) {
    r.pe_nnz_min = *std::min_element(s.pe_nnz.begin(), s.pe_nnz.end());
    r.pe_nnz_max = *std::max_element(s.pe_nnz.begin(), s.pe_nnz.end());
    std::uint64_t total = 0;
    for (std::uint64_t n : s.pe_nnz) total += n;
    r.pe_nnz_mean = static_cast<double>(total) / static_cast<double>(s.pe_nnz.size());
    r.pe_items_mean = static_cast<double>(s.pe_items_total) / static_cast<double>(s.pe_nnz.size());
  }
  r.imbalance = r.pe_nnz_mean == 0 ? 0.0 : static_cast<double>(r.pe_nnz_max) / r.pe_nnz_mean;
  r.wasted_mac_slots = s.pes * max_entries - std::min(s.nnz, s.pes * max_entries);
  r.pe_items_max = s.pe_items_max;
  r.storage_bytes = s.storage_bytes;
  return r;
}

}  // namespace

Report make_report(const machine::MachineConfig& m, const RunStats& s) {
  Report r;
  r.machine = m.name;
  r.kernel = s.kernel;
  r.functional = s.functional;
  r.clock_ghz = m.clock_ghz;
  r.cycles = s.cycles;
  r.seconds = static_cast<double>(s.cycles) / (m.clock_ghz * 1e9);
  r.roofline = roofline(m, s);
  r.critical_path = s.critical_path;
  r.levels = level_reports(m, s.work, s.ports);
  for (const auto& [name, busy] : s.resource_busy_cycles) {
    UnitReport u{name, busy, ratio(busy, s.cycles), std::nullopt};
    auto pe = s.pe_unit_busy_cycles.find(name);
    if (pe != s.pe_unit_busy_cycles.end() && !pe->second.empty()) {
      auto [lo, hi] = std::minmax_element(pe->second.begin(), pe->second.end());
      u.pe_busy_min_max = std::make_pair(*lo, *hi);
    }
    r.units.push_back(u);
  }
  for (const auto& [kind, ks] : s.instructions)
    r.instructions.push_back({kind, ks.count, ks.busy_cycles, ks.span_cycles});
  r.work = s.work;
  for (timing::Unit u : timing::machine_units(m))
    if (const char* key = timing::spec(u).work_key) r.unit_work.emplace_back(key, s.work.unit_items(u));
  r.useful_macs = s.useful_macs;
  r.lm_peak_bytes_per_pe = s.lm_peak_bytes_per_pe;
  r.dram_channels = s.dram_channels;
  r.dram_banks = s.dram_banks;
  if (m.energy) r.energy_pj = energy(m, s);
  r.verify = s.verify;
  for (const auto& [name, p] : s.phases)
    r.phases.push_back({name, p.cycles, p.work, level_reports(m, p.work), p.lm_bytes_per_pe});
  if (s.sparse) r.sparse = sparse_report(*s.sparse);
  r.info = s.info;
  r.fields = s.extra;
  return r;
}

}  // namespace treesim::report
