// The short human summary: a renderer of a Report, no figure derived here.
#include <fmt/format.h>

#include "sim/report/report.h"

namespace treesim::report {

std::string to_text(const Report& r) {
  std::string out = fmt::format("{} on {}: {} cycles ({:.3g} s at {} GHz)\n", r.kernel, r.machine, r.cycles,
                                r.seconds, r.clock_ghz);
  out += fmt::format("  roofline bound {} cycles, set by {} ({:.1f}% of the run)\n", r.roofline.cycles,
                     r.roofline.resource, 100 * r.roofline.fraction_of_run);
  if (r.critical_path) out += "  critical path: " + timing::path_summary(*r.critical_path) + "\n";
  out += fmt::format("  DRAM read {} B, written {} B\n", r.work.dram_read_bytes, r.work.dram_write_bytes);
  for (std::size_t c = 0; c < r.dram_channels.size(); ++c)
    out += fmt::format("  DRAM channel {}: read {} B, written {} B, busy {} cycles\n", c,
                       r.dram_channels[c].read_bytes, r.dram_channels[c].write_bytes,
                       r.dram_channels[c].busy_cycles);
  if (const auto& b = r.dram_banks)
    out += fmt::format(
        "  DRAM row hits {:.1f}% ({} hits, {} misses, {} conflicts), {} activates, {} refreshes\n",
        100 * b->row_hit_rate(), b->row_hits, b->row_misses, b->row_conflicts, b->activates, b->refreshes);
  for (const LevelReport& level : r.levels) {
    const timing::LinkWork& ls = level.traffic;
    out += fmt::format("  {:<4} down sent {} B, delivered {} B; up sent {} B, delivered {} B\n", level.name,
                       ls.down_sent_bytes, ls.down_delivered_bytes, ls.up_sent_bytes, ls.up_delivered_bytes);
  }
  // The PE units only, in pipeline order, and only those that worked.
  for (const timing::UnitSpec& spec : timing::unit_specs()) {
    for (const UnitReport& unit : r.units)
      if (unit.name == spec.name && unit.busy_cycles)
        out += fmt::format("  {} busy {:.1f}%\n", unit.name, 100 * unit.utilization);
  }
  for (const KindReport& k : r.instructions)
    if (k.count)
      out += fmt::format("  {}: {} instruction{}, busy {} cycle{}, span {} cycle{}\n", k.kind, k.count,
                         k.count == 1 ? "" : "s", k.busy_cycles, k.busy_cycles == 1 ? "" : "s", k.span_cycles,
                         k.span_cycles == 1 ? "" : "s");
  out += fmt::format("  LM peak {} B per PE\n", r.lm_peak_bytes_per_pe);
  for (const PhaseReport& p : r.phases) {
    std::uint64_t links = 0;
    for (const LevelReport& level : p.levels)
      links += level.traffic.down_sent_bytes + level.traffic.up_sent_bytes;
    out += fmt::format("  phase {}: {} cycles; DRAM read {} B, written {} B; links sent {} B{}\n", p.name,
                       p.cycles, p.work.dram_read_bytes, p.work.dram_write_bytes, links,
                       p.lm_bytes_per_pe ? fmt::format("; LM {} B per PE", *p.lm_bytes_per_pe) : "");
  }
  if (r.sparse) {
    const SparseReport& sp = *r.sparse;
    out += fmt::format(
        "  sparse: {} nonzeros, {} stored entries walked; per PE nnz min {} mean {:.1f} max {} (imbalance "
        "{:.2f}); {} wasted MAC slots\n",
        sp.nnz, sp.stored_entries, sp.pe_nnz_min, sp.pe_nnz_mean, sp.pe_nnz_max, sp.imbalance,
        sp.wasted_mac_slots);
    std::string storage;
    for (const auto& [name, bytes] : sp.storage_bytes)
      storage += fmt::format("{}{} {}", storage.empty() ? "" : ", ", name, bytes);
    out += fmt::format("  sparse storage (B, all PEs): {}\n", storage);
  }
  if (r.verify) {
    if (r.verify->ok)
      out += "  verify: ok (bit-exact)\n";
    else
      out += fmt::format("  verify: FAILED, {} mismatches; first {}\n", r.verify->mismatches,
                         r.verify->first_mismatch);
  }
  return out;
}

}  // namespace treesim::report
