#include "sim/machine/dram_yaml.h"

#include <cmath>
#include <filesystem>

#include "sim/core/checked.h"
#include "sim/core/echo.h"
#include "sim/io/input_file.h"

namespace treesim::machine::detail {
namespace {

// One memspec, from its own file (`r` names that file) or inline (`path` prefixes its fields).
MemSpec read_memspec(const Reader& r, const YAML::Node& node, const YAML::Mark& fallback,
                     const std::string& path) {
  const auto at = [&](const std::string& key) { return path.empty() ? key : path + "." + key; };
  r.expect_map(node, fallback, path,
               {"name", "standard", "clock_mhz", "data_bits", "transfers_per_clock", "burst_length", "ranks",
                "bank_groups", "banks_per_group", "rows", "row_bytes", "timing", "energy_pj"},
               {"name", "clock_mhz", "data_bits", "transfers_per_clock", "burst_length", "rows", "row_bytes",
                "timing"});
  const YAML::Mark m = node.Mark();
  MemSpec s;
  s.name = r.text(node["name"], m, at("name"));
  if (node["standard"].IsDefined()) s.standard = r.text(node["standard"], m, at("standard"));
  s.clock_mhz = r.positive_real(node["clock_mhz"], m, at("clock_mhz"), false);
  s.data_bits = r.integer(node["data_bits"], m, at("data_bits"), 1);
  s.transfers_per_clock = r.integer(node["transfers_per_clock"], m, at("transfers_per_clock"), 1);
  s.burst_length = r.integer(node["burst_length"], m, at("burst_length"), 1);
  if (node["ranks"].IsDefined()) s.ranks = r.integer(node["ranks"], m, at("ranks"), 1);
  if (node["bank_groups"].IsDefined())
    s.bank_groups = r.integer(node["bank_groups"], m, at("bank_groups"), 1);
  if (node["banks_per_group"].IsDefined())
    s.banks_per_group = r.integer(node["banks_per_group"], m, at("banks_per_group"), 1);
  s.rows = r.integer(node["rows"], m, at("rows"), 1);
  s.row_bytes = r.size(node["row_bytes"], m, at("row_bytes"), 1);
  const YAML::Node t = node["timing"];
  r.expect_map(t, m, at("timing"),
               {"tRCD", "tRP",  "tCL",    "tWL",  "tRAS", "tRC",    "tCCD",  "tCCD_L", "tRRD",   "tRRD_L",
                "tFAW", "tWTR", "tWTR_L", "tRTP", "tWR",  "tBURST", "tREFI", "tRFC",   "tRFCpb", "tREFIpb"},
               {"tRCD", "tRP", "tCL", "tWL", "tRAS", "tRC", "tCCD", "tRRD", "tFAW", "tWTR", "tRTP", "tWR",
                "tBURST", "tREFI", "tRFC"});
  // Zero is read here and refused by check_memspec, so the message says which timing it was.
  const auto cycles = [&](const char* key) {
    return r.integer(t[key], t.Mark(), at("timing") + "." + key, 0);
  };
  MemTiming& x = s.t;
  x.tRCD = cycles("tRCD"), x.tRP = cycles("tRP"), x.tCL = cycles("tCL"), x.tWL = cycles("tWL");
  x.tRAS = cycles("tRAS"), x.tRC = cycles("tRC"), x.tCCD = cycles("tCCD"), x.tRRD = cycles("tRRD");
  x.tFAW = cycles("tFAW"), x.tWTR = cycles("tWTR"), x.tRTP = cycles("tRTP"), x.tWR = cycles("tWR");
  x.tBURST = cycles("tBURST"), x.tREFI = cycles("tREFI"), x.tRFC = cycles("tRFC");
  x.tCCD_L = t["tCCD_L"].IsDefined() ? cycles("tCCD_L") : x.tCCD;
  x.tRRD_L = t["tRRD_L"].IsDefined() ? cycles("tRRD_L") : x.tRRD;
  x.tWTR_L = t["tWTR_L"].IsDefined() ? cycles("tWTR_L") : x.tWTR;
  if (t["tRFCpb"].IsDefined()) x.tRFCpb = r.integer(t["tRFCpb"], t.Mark(), at("timing") + ".tRFCpb", 1);
  if (t["tREFIpb"].IsDefined()) x.tREFIpb = r.integer(t["tREFIpb"], t.Mark(), at("timing") + ".tREFIpb", 1);
  if (const YAML::Node e = node["energy_pj"]; e.IsDefined()) {
    r.expect_map(e, m, at("energy_pj"), {"activate", "read", "write", "refresh"},
                 {"activate", "read", "write", "refresh"});
    const auto pj = [&](const char* key) {
      return r.positive_real(e[key], e.Mark(), at("energy_pj") + "." + key, true);
    };
    s.energy = {pj("activate"), pj("read"), pj("write"), pj("refresh")};
  }
  if (const core::Errors errors = check_memspec(s); !errors.empty())
    r.fail(r.mark_of(at(errors.front().where)),
           fmt::format("field '{}': {}", at(errors.front().where), errors.front().what));
  return s;
}

}  // namespace

MemSpec parse_memspec(const std::string& text, const std::string& file) {
  Reader memspec(file);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    memspec.fail(e.mark, fmt::format("not valid YAML: {}", core::echo(e.msg, 200)));
  }
  return read_memspec(memspec, root, YAML::Mark(), "");
}

namespace {

MemSpec load_memspec(const Reader& r, const YAML::Node& node, const std::string& machine_file) {
  namespace fs = std::filesystem;
  const std::string given = r.text(node, node.Mark(), "dram.banked.memspec");
  fs::path path(given);
  if (path.is_relative()) path = fs::path(machine_file).parent_path() / path;
  std::string text;
  try {
    text = io::read_input_file(path.string(), io::kMaxMachineFileBytes, "memspec file");
  } catch (const io::InputFileError& e) {
    r.fail(node.Mark(), fmt::format("field 'dram.banked.memspec': {}", e.reason()));
  }
  MemSpec s = parse_memspec(text, path.string());
  s.file = given;
  return s;
}

BankedDramConfig read_banked(const Reader& r, const YAML::Node& node, const YAML::Mark& fallback,
                             const std::string& machine_file) {
  const std::string path = "dram.banked";
  r.expect_map(node, fallback, path,
               {"memspec", "channels", "mapping", "xor_bank", "page_policy", "refresh", "controller_cycles"},
               {"memspec", "mapping"});
  const YAML::Mark m = node.Mark();
  BankedDramConfig b;
  const YAML::Node spec = node["memspec"];
  b.memspec =
      spec.IsMap() ? read_memspec(r, spec, m, path + ".memspec") : load_memspec(r, spec, machine_file);
  if (node["channels"].IsDefined()) b.channels = r.integer(node["channels"], m, path + ".channels", 1);
  const std::string mapping = r.text(node["mapping"], m, path + ".mapping");
  std::string why;
  if (!parse_address_mapping(mapping, b.mapping, why))
    r.fail(node["mapping"].Mark(), fmt::format("field '{}.mapping': {}", path, why));
  if (node["xor_bank"].IsDefined()) b.xor_bank = r.boolean(node["xor_bank"], m, path + ".xor_bank");
  if (const YAML::Node p = node["page_policy"]; p.IsDefined()) {
    if (!p.IsScalar() || (p.Scalar() != "open" && p.Scalar() != "closed"))
      r.fail_field(p, m, path + ".page_policy", "open or closed");
    b.page_policy = p.Scalar() == "open" ? PagePolicy::kOpen : PagePolicy::kClosed;
  }
  if (const YAML::Node p = node["refresh"]; p.IsDefined()) {
    if (!p.IsScalar() || (p.Scalar() != "all_bank" && p.Scalar() != "per_bank"))
      r.fail_field(p, m, path + ".refresh", "all_bank or per_bank");
    b.refresh = p.Scalar() == "all_bank" ? RefreshMode::kAllBank : RefreshMode::kPerBank;
  }
  if (node["controller_cycles"].IsDefined())
    b.controller_cycles = r.integer(node["controller_cycles"], m, path + ".controller_cycles", 0);
  if (const core::Errors errors = check_banked(b); !errors.empty())
    r.fail(r.mark_of(path + "." + errors.front().where),
           fmt::format("field '{}.{}': {}", path, errors.front().where, errors.front().what));
  return b;
}

}  // namespace

void read_dram(const Reader& r, const YAML::Node& dram, const YAML::Mark& fallback, MachineConfig& c,
               const std::string& machine_file) {
  r.expect_map(dram, fallback, "dram",
               {"bytes", "bytes_per_cycle", "latency_cycles", "model", "banked", "per", "placement",
                "interleave_bytes"},
               {"bytes"});
  const YAML::Mark m = dram.Mark();
  DramConfig& d = c.dram;
  d.bytes = r.size(dram["bytes"], m, "dram.bytes", 1);
  if (const YAML::Node model = dram["model"]; model.IsDefined()) {
    if (!model.IsScalar() || (model.Scalar() != "simple" && model.Scalar() != "banked"))
      r.fail_field(model, m, "dram.model", "simple or banked");
    d.model = model.Scalar() == "simple" ? DramModel::kSimple : DramModel::kBanked;
  }
  if (d.model == DramModel::kSimple) {
    for (const char* key : {"bytes_per_cycle", "latency_cycles"})
      if (!dram[key].IsDefined()) r.fail(m, fmt::format("field 'dram.{}': missing (it is required)", key));
    if (dram["banked"].IsDefined())
      r.fail(dram["banked"].Mark(), "field 'dram.banked': only with model: banked");
    d.bytes_per_cycle = r.integer(dram["bytes_per_cycle"], m, "dram.bytes_per_cycle", 1);
    d.latency_cycles = r.integer(dram["latency_cycles"], m, "dram.latency_cycles", 0);
  } else {
    for (const char* key : {"bytes_per_cycle", "latency_cycles"})
      if (dram[key].IsDefined())
        r.fail(
            dram[key].Mark(),
            fmt::format("field 'dram.{}': the banked model derives it from its memspec (leave it out)", key));
    if (!dram["banked"].IsDefined()) r.fail(m, "field 'dram.banked': missing (model: banked needs it)");
    d.banked = read_banked(r, dram["banked"], m, machine_file);
    // The rates every estimate and summary use: the peak, rounded down, and a row hit's latency.
    const double peak = banked_peak_bytes_per_cycle(*d.banked, c.clock_ghz);
    if (peak < 1)
      r.fail(
          dram["banked"].Mark(),
          fmt::format("field 'dram.banked': its peak is {:.3f} bytes per machine cycle; at least 1 is needed",
                      peak));
    d.bytes_per_cycle = static_cast<std::uint64_t>(std::floor(peak + 1e-9));
    d.latency_cycles = banked_row_hit_latency(*d.banked, c.clock_ghz);
    // channel_bytes() stays below 2^61 within check_memspec's limits; the product may not.
    const std::uint64_t holds =
        core::checked_mul(d.banked->memspec.channel_bytes(), d.banked->channels).value_or(UINT64_MAX);
    if (d.bytes > holds)
      r.fail(dram["bytes"].Mark(),
             fmt::format("field 'dram.bytes': {} bytes, but {} channel(s) of {} address {} bytes", d.bytes,
                         d.banked->channels, d.banked->memspec.name, holds));
  }
  if (const YAML::Node per = dram["per"]; per.IsDefined()) {
    const std::string level = r.text(per, m, "dram.per");
    const auto index = c.level_index(level);
    if (!index) r.fail_field(per, m, "dram.per", "the name of a level of this machine");
    // Channels below the first level would need traffic routed between subtrees at any depth.
    if (*index != 0)
      r.fail(per.Mark(),
             fmt::format("field 'dram.per': channels can be attached to the first level ({}) only, "
                         "got {}",
                         c.levels.front().name, level));
    if (*index + 1 == c.levels.size())
      r.fail(per.Mark(), "field 'dram.per': the PE level cannot have channels");
    // Each channel is a module, a socket and a DRAM image of its own.
    if (c.levels[*index].fanout > kMaxDramChannels)
      r.fail(per.Mark(), fmt::format("field 'dram.per': {} has {} units, at most {} DRAM channels", level,
                                     c.levels[*index].fanout, kMaxDramChannels));
    d.per_level = index;
  }
  if (const YAML::Node p = dram["placement"]; p.IsDefined()) {
    bool named = false;
    for (DramPlacement each : {DramPlacement::kLayout, DramPlacement::kSplit, DramPlacement::kInterleave}) {
      if (p.IsScalar() && p.Scalar() == placement_name(each)) {
        d.placement = each;
        named = true;
      }
    }
    if (!named) r.fail_field(p, m, "dram.placement", "layout, split or interleave");
    if (!d.per_level)
      r.fail(p.Mark(), "field 'dram.placement': only with per (one channel per unit of a level)");
  }
  if (dram["interleave_bytes"].IsDefined()) {
    d.interleave_bytes = r.size(dram["interleave_bytes"], m, "dram.interleave_bytes", 1);
    if (d.interleave_bytes % 64 != 0)
      r.fail(dram["interleave_bytes"].Mark(),
             fmt::format("field 'dram.interleave_bytes': expected a multiple of 64, got {}",
                         d.interleave_bytes));
  }
  // Every channel holds whole interleaving units, so that an address maps to one channel.
  if (d.per_level && d.bytes % d.interleave_bytes != 0)
    r.fail(dram["bytes"].Mark(), fmt::format("field 'dram.bytes': {} channels of {} bytes do not divide into "
                                             "interleaving units of {} bytes",
                                             c.dram_channels(), d.bytes, d.interleave_bytes));
}

}  // namespace treesim::machine::detail
