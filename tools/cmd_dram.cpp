// `treesim dram probe`: a machine's DRAM model under a synthetic access pattern (models/dram_probe.h).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "models/dram_probe.h"
#include "sim/core/echo.h"
#include "sim/machine/machine_file.h"
#include "tools/cli.h"

namespace treesim::tools {
namespace {

struct ProbeArgs {
  std::string machine, pattern = "stream", bytes = "1MiB", access_bytes = "64";
  std::uint64_t outstanding = 256, seed = 1;
  bool write = false, json = false;
};

std::uint64_t size_option(const std::string& option, const std::string& text) {
  std::uint64_t bytes = 0;
  if (!machine::parse_size(text, bytes) || bytes == 0)
    throw CliError(fmt::format("{}: expected a positive size in bytes (e.g. 64, 4KiB, 1MiB), got '{}'",
                               option, core::echo(text)));
  return bytes;
}

std::string probe_json(const models::ProbeResult& r, const machine::MachineConfig& m,
                       const models::ProbeOptions& o) {
  nlohmann::ordered_json j;
  j["machine"] = m.name;
  j["model"] = m.dram.banked ? "banked" : "simple";
  j["pattern"] = models::probe_pattern_name(o.pattern);
  j["operation"] = o.write ? "write" : "read";
  j["accesses"] = r.accesses;
  j["access_bytes"] = o.access_bytes;
  j["bytes"] = r.bytes;
  j["outstanding"] = o.outstanding;
  j["cycles"] = r.cycles;
  j["peak_bytes_per_cycle"] = r.peak_bytes_per_cycle;
  j["achieved_bytes_per_cycle"] = r.achieved_bytes_per_cycle;
  j["fraction_of_peak"] =
      r.peak_bytes_per_cycle > 0 ? r.achieved_bytes_per_cycle / r.peak_bytes_per_cycle : 0;
  j["cycles_per_access"] = r.accesses ? static_cast<double>(r.cycles) / static_cast<double>(r.accesses) : 0;
  j["row_hit_rate"] =
      r.banks ? nlohmann::ordered_json(r.banks->row_hit_rate()) : nlohmann::ordered_json(nullptr);
  if (r.banks)
    j["commands"] = {{"reads", r.banks->reads},
                     {"writes", r.banks->writes},
                     {"row_hits", r.banks->row_hits},
                     {"row_misses", r.banks->row_misses},
                     {"row_conflicts", r.banks->row_conflicts},
                     {"activates", r.banks->activates},
                     {"precharges", r.banks->precharges},
                     {"refreshes", r.banks->refreshes}};
  j["latency_cycles"] = {{"min", r.latency_min},
                         {"p50", r.latency_p50},
                         {"p90", r.latency_p90},
                         {"p99", r.latency_p99},
                         {"max", r.latency_max}};
  return j.dump(2) + "\n";
}

std::string probe_text(const models::ProbeResult& r, const machine::MachineConfig& m,
                       const models::ProbeOptions& o) {
  std::string out = fmt::format("DRAM probe of {} ({} model{}): {} {} accesses of {} B, {} in flight\n",
                                m.name, m.dram.banked ? "banked" : "simple",
                                m.dram.banked ? ", " + m.dram.banked->memspec.name : "", r.accesses,
                                models::probe_pattern_name(o.pattern) + (o.write ? " write" : " read"),
                                o.access_bytes, o.outstanding);
  out +=
      fmt::format("  {} bytes in {} cycles: {:.2f} B/cycle, {:.1f}% of the peak {:.2f} B/cycle\n", r.bytes,
                  r.cycles, r.achieved_bytes_per_cycle,
                  r.peak_bytes_per_cycle > 0 ? 100 * r.achieved_bytes_per_cycle / r.peak_bytes_per_cycle : 0,
                  r.peak_bytes_per_cycle);
  out += fmt::format("  {:.2f} cycles per access\n",
                     r.accesses ? static_cast<double>(r.cycles) / static_cast<double>(r.accesses) : 0);
  if (r.banks)
    out += fmt::format("  row hits {:.1f}% ({} hits, {} misses, {} conflicts); {} activates, {} refreshes\n",
                       100 * r.banks->row_hit_rate(), r.banks->row_hits, r.banks->row_misses,
                       r.banks->row_conflicts, r.banks->activates, r.banks->refreshes);
  out += fmt::format("  latency (cycles): min {}, p50 {}, p90 {}, p99 {}, max {}\n", r.latency_min,
                     r.latency_p50, r.latency_p90, r.latency_p99, r.latency_max);
  return out;
}

}  // namespace

void add_dram_command(CLI::App& app) {
  auto* dram = app.add_subcommand("dram", "Look at a machine's DRAM model on its own");
  dram->require_subcommand(1);
  auto* cmd = dram->add_subcommand(
      "probe", "Drive one DRAM channel with a synthetic pattern: bandwidth, row hits, latency");
  auto a = std::make_shared<ProbeArgs>();
  cmd->add_option("--machine", a->machine, "Machine file (YAML)")->required();
  cmd->add_option("--pattern", a->pattern,
                  "stream, random, stride:BYTES or rows:N (N rows of one bank in turn)")
      ->capture_default_str();
  cmd->add_option("--bytes", a->bytes, "Bytes in all (e.g. 1MiB)")->capture_default_str();
  cmd->add_option("--access-bytes", a->access_bytes, "Bytes per access")->capture_default_str();
  cmd->add_option("--outstanding", a->outstanding, "Accesses in flight (a closed loop)")
      ->capture_default_str();
  cmd->add_option("--seed", a->seed, "Seed of the random pattern")->capture_default_str();
  cmd->add_flag("--write", a->write, "Write instead of read");
  cmd->add_flag("--json", a->json, "Print JSON instead of text");
  cmd->callback([a] {
    const machine::MachineConfig m = load_machine_or_throw(a->machine);
    models::ProbeOptions o;
    core::Error why;
    const auto pattern = models::parse_probe_pattern(a->pattern, why);
    if (!pattern) throw CliError(why.message());
    o.pattern = *pattern;
    o.bytes = size_option("--bytes", a->bytes);
    o.access_bytes = size_option("--access-bytes", a->access_bytes);
    o.outstanding = a->outstanding;
    o.seed = a->seed;
    o.write = a->write;
    if (const core::Errors errors = models::check_probe(m, o); !errors.empty())
      throw CliError(first_error(errors));
    const models::ProbeResult r = models::probe_dram(m, o);
    emit(a->json ? probe_json(r, m, o) : probe_text(r, m, o));
  });
}

}  // namespace treesim::tools
