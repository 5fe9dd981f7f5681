// `treesim info`: what a machine file describes, in numbers.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "models/hierarchy.h"
#include "models/simulation.h"
#include "sim/timing/machine_summary.h"
#include "tools/cli.h"
#include "tools/format.h"

namespace treesim::tools {
namespace {

std::string info_json(const timing::MachineSummary& s) {
  nlohmann::ordered_json j;
  j["machine"] = s.name;
  j["clock_ghz"] = s.clock_ghz;
  j["pes"] = s.pes;
  j["levels"] = nlohmann::ordered_json::array();
  for (const auto& l : s.levels) {
    j["levels"].push_back({{"name", l.name},
                           {"fanout", l.fanout},
                           {"units", l.units},
                           {"memory_bytes_per_unit", l.memory_bytes_per_unit},
                           {"memory_bytes_total", l.memory_bytes_total},
                           {"down_bytes_per_second", l.down_bytes_per_second},
                           {"up_bytes_per_second", l.up_bytes_per_second},
                           {"latency_cycles", l.latency_cycles},
                           {"reduce", l.reduce}});
  }
  j["lm_bytes_per_pe"] = s.lm_bytes_per_pe;
  j["lm_bytes_total"] = s.lm_bytes_total;
  j["peak_int8_ops_per_second"] = s.peak_int8_ops_per_second;
  j["dram"] = {{"bytes", s.dram_bytes},
               {"bytes_per_second", s.dram_bytes_per_second},
               {"latency_cycles", s.dram_latency_cycles}};
  if (s.dram_channels > 1) {
    j["dram"]["channels"] = s.dram_channels;
    j["dram"]["per"] = s.dram_channel_level;
    j["dram"]["placement"] = machine::placement_name(s.dram_placement);
    if (s.dram_interleave_bytes) j["dram"]["interleave_bytes"] = s.dram_interleave_bytes;
  }
  if (s.dram_model != "simple") {
    j["dram"]["model"] = s.dram_model;
    j["dram"]["memspec"] = s.dram_memspec;
    j["dram"]["row_hit_latency_cycles"] = s.dram_latency_cycles;
  }
  j["path_latency_cycles"] = s.path_latency_cycles;
  if (s.pe_instruction_step_cycles > 1) j["pe_instruction_step_cycles"] = s.pe_instruction_step_cycles;
  j["machine_balance_ops_per_dram_byte"] = s.ops_per_dram_byte;
  return j.dump(2) + "\n";
}

std::string info_text(const timing::MachineSummary& s) {
  std::string out = fmt::format("machine {}: {} PEs at {} GHz\n", s.name, s.pes, s.clock_ghz);
  out += fmt::format("  {:<8} {:>7} {:>7} {:>12} {:>12} {:>14} {:>14} {:>8}\n", "level", "fanout", "units",
                     "memory/unit", "memory", "down BW", "up BW", "latency");
  for (const auto& l : s.levels) {
    out += fmt::format("  {:<8} {:>7} {:>7} {:>12} {:>12} {:>14} {:>14} {:>6} c{}\n", l.name, l.fanout,
                       l.units, format_bytes(l.memory_bytes_per_unit), format_bytes(l.memory_bytes_total),
                       format_rate(l.down_bytes_per_second, "B/s"), format_rate(l.up_bytes_per_second, "B/s"),
                       l.latency_cycles, l.reduce ? "  (reduce)" : "");
  }
  out += fmt::format("  LM: {} per PE, {} in total\n", format_bytes(s.lm_bytes_per_pe),
                     format_bytes(s.lm_bytes_total));
  out += fmt::format("  peak int8: {}\n", format_rate(s.peak_int8_ops_per_second, "op/s"));
  if (s.dram_channels > 1) {
    const double n = static_cast<double>(s.dram_channels);
    out += fmt::format("  DRAM: {} channels, one per {}: {} x {}, {} x {} ({}, {})\n", s.dram_channels,
                       s.dram_channel_level, s.dram_channels, format_bytes(s.dram_bytes / s.dram_channels),
                       s.dram_channels, format_rate(s.dram_bytes_per_second / n, "B/s"),
                       format_bytes(s.dram_bytes), format_rate(s.dram_bytes_per_second, "B/s"));
    std::string how = "each element with the unit its first load or store puts it in";
    if (s.dram_placement == machine::DramPlacement::kSplit) how = "each tensor in equal pieces";
    if (s.dram_placement == machine::DramPlacement::kInterleave)
      how = format_bytes(s.dram_interleave_bytes) + " at a time in turn";
    out += fmt::format("  DRAM placement: {} ({})\n", machine::placement_name(s.dram_placement), how);
  } else {
    out += fmt::format("  DRAM: {}, {}, {} c latency\n", format_bytes(s.dram_bytes),
                       format_rate(s.dram_bytes_per_second, "B/s"), s.dram_latency_cycles);
  }
  if (s.dram_model != "simple")
    out += fmt::format("  DRAM model: {}, {}; a row hit takes {} c\n", s.dram_model, s.dram_memspec,
                       s.dram_latency_cycles);
  out += fmt::format("  path latency: {} c each way between DRAM and a PE (DRAM's and every level's)\n",
                     s.path_latency_cycles);
  if (s.pe_instruction_step_cycles > 1)
    out += fmt::format("  PE instructions: one per {}-cycle step\n", s.pe_instruction_step_cycles);
  out += fmt::format("  machine balance: {:.1f} int8 ops per DRAM byte\n", s.ops_per_dram_byte);
  return out;
}

// The modules a simulation of `machine` elaborates (it is built, not run).
std::string systemc_text(const machine::MachineConfig& machine, bool json) {
  models::Simulation sim(machine);
  const std::vector<models::ModuleInfo> modules = models::hierarchy();
  if (json) {
    nlohmann::ordered_json j;
    j["machine"] = machine.name;
    j["modules"] = nlohmann::ordered_json::array();
    for (const auto& m : modules)
      j["modules"].push_back({{"name", m.name},
                              {"kind", m.kind},
                              {"processes", m.processes},
                              {"sockets", m.sockets},
                              {"ports", m.ports}});
    return j.dump(2) + "\n";
  }
  std::size_t name_width = 0, kind_width = 0;
  for (const auto& m : modules) name_width = std::max(name_width, m.name.size());
  for (const auto& m : modules) kind_width = std::max(kind_width, m.kind.size());
  std::string out = fmt::format("SystemC modules of {}: {}\n", machine.name, modules.size());
  for (const auto& m : modules) {
    std::string what;
    auto add = [&](const char* label, const std::vector<std::string>& items) {
      for (std::size_t i = 0; i < items.size(); ++i)
        what += fmt::format("{}{}{}", what.empty() ? "" : (i ? ", " : "; "), i ? "" : label, items[i]);
    };
    add("process ", m.processes);
    add("socket ", m.sockets);
    add("", m.ports);
    out += fmt::format("  {:<{}}  {:<{}}  {}\n", m.name, name_width, m.kind, kind_width, what);
  }
  return out;
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Print a machine's units, memories, peak compute and bandwidths");
  auto machine_path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto systemc = std::make_shared<bool>(false);
  cmd->add_option("--machine", *machine_path, "Machine file (YAML), e.g. configs/mini.yaml")->required();
  cmd->add_flag("--json", *json, "Print JSON instead of text");
  cmd->add_flag("--systemc", *systemc,
                "Print the SystemC modules a simulation of the machine elaborates: each with its processes, "
                "sockets, ports and exports");
  cmd->callback([machine_path, json, systemc] {
    const machine::MachineConfig machine = load_machine_or_throw(*machine_path);
    if (*systemc) return emit(systemc_text(machine, *json));
    timing::MachineSummary s = timing::summarize(machine);
    emit(*json ? info_json(s) : info_text(s));
  });
}

}  // namespace treesim::tools
