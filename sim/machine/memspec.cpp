#include "sim/machine/memspec.h"

#include <cmath>
#include <iterator>
#include <set>

#include <fmt/format.h>

namespace treesim::machine {
namespace {

constexpr AddressField kFields[] = {AddressField::kRow,  AddressField::kRank,   AddressField::kBankGroup,
                                    AddressField::kBank, AddressField::kColumn, AddressField::kChannel};

bool power_of_two(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace

const char* address_field_code(AddressField f) {
  switch (f) {
    case AddressField::kRow:
      return "Ro";
    case AddressField::kRank:
      return "Ra";
    case AddressField::kBankGroup:
      return "Bg";
    case AddressField::kBank:
      return "Ba";
    case AddressField::kColumn:
      return "Co";
    case AddressField::kChannel:
      return "Ch";
  }
  return "?";
}

bool parse_address_mapping(const std::string& text, std::vector<AddressField>& out, std::string& error) {
  out.clear();
  std::set<AddressField> seen;
  for (std::size_t i = 0; i < text.size(); i += 2) {
    const std::string code = text.substr(i, 2);
    bool found = false;
    for (AddressField f : kFields) {
      if (code != address_field_code(f)) continue;
      found = true;
      if (!seen.insert(f).second) {
        error = fmt::format("'{}' appears twice", code);
        return false;
      }
      out.push_back(f);
    }
    if (!found) {
      error = fmt::format(
          "'{}' is not a field (expected two-letter codes Ro, Ra, Bg, Ba, Co, Ch, most "
          "significant first, e.g. RoRaBaCoBgCh)",
          code);
      return false;
    }
  }
  return true;
}

std::uint64_t address_field_values(const BankedDramConfig& b, AddressField f) {
  const MemSpec& m = b.memspec;
  switch (f) {
    case AddressField::kRow:
      return m.rows;
    case AddressField::kRank:
      return m.ranks;
    case AddressField::kBankGroup:
      return m.bank_groups;
    case AddressField::kBank:
      return m.banks_per_group;
    case AddressField::kColumn:
      return m.bursts_per_row();
    case AddressField::kChannel:
      break;
  }
  return b.channels;
}

std::string address_mapping_text(const std::vector<AddressField>& mapping) {
  std::string s;
  for (AddressField f : mapping) s += address_field_code(f);
  return s;
}

core::Errors check_memspec(const MemSpec& m) {
  core::Errors e;
  const auto add = [&](std::string where, std::string what) {
    e.push_back({std::move(where), std::move(what)});
  };
  if (!std::isfinite(m.clock_mhz) || m.clock_mhz <= 0 || m.clock_mhz > 100000)
    add("clock_mhz", fmt::format("expected a positive number of MHz up to 100000, got {}", m.clock_mhz));
  if (m.data_bits == 0 || m.data_bits % 8 != 0 || m.data_bits > 4096)
    add("data_bits", fmt::format("expected a multiple of 8 up to 4096, got {}", m.data_bits));
  const std::pair<const char*, std::uint64_t> counts[] = {
      {"ranks", m.ranks}, {"bank_groups", m.bank_groups}, {"banks_per_group", m.banks_per_group},
      {"rows", m.rows},   {"row_bytes", m.row_bytes},     {"burst_length", m.burst_length}};
  // Limits that keep a channel's banks few enough to hold in memory and its bytes within 2^64.
  const std::pair<const char*, std::uint64_t> counts_limits[] = {{"ranks", 16},
                                                                 {"bank_groups", 64},
                                                                 {"banks_per_group", 64},
                                                                 {"rows", std::uint64_t{1} << 24},
                                                                 {"row_bytes", std::uint64_t{1} << 20},
                                                                 {"burst_length", 256}};
  for (std::size_t i = 0; i < std::size(counts); ++i) {
    const auto& [name, v] = counts[i];
    const std::uint64_t limit = counts_limits[i].second;
    if (!power_of_two(v) || v > limit)
      add(name, fmt::format("expected a power of two up to {}, got {}", limit, v));
  }
  if (m.transfers_per_clock == 0 || m.transfers_per_clock > 64)
    add("transfers_per_clock", fmt::format("expected 1 to 64, got {}", m.transfers_per_clock));
  if (!e.empty()) return e;
  if (m.row_bytes < m.burst_bytes())
    add("row_bytes",
        fmt::format("expected at least one burst ({} bytes), got {}", m.burst_bytes(), m.row_bytes));
  const MemTiming& t = m.t;
  const std::pair<const char*, std::uint64_t> positive[] = {
      {"tRCD", t.tRCD}, {"tRP", t.tRP},   {"tCL", t.tCL},       {"tWL", t.tWL},     {"tRAS", t.tRAS},
      {"tRC", t.tRC},   {"tCCD", t.tCCD}, {"tRRD", t.tRRD},     {"tFAW", t.tFAW},   {"tWTR", t.tWTR},
      {"tRTP", t.tRTP}, {"tWR", t.tWR},   {"tBURST", t.tBURST}, {"tREFI", t.tREFI}, {"tRFC", t.tRFC}};
  for (const auto& [name, v] : positive) {
    if (v == 0) add(fmt::format("timing.{}", name), "expected a positive number of cycles, got 0");
    if (v > (std::uint64_t{1} << 24))
      add(fmt::format("timing.{}", name), fmt::format("expected at most 2^24 cycles, got {}", v));
  }
  if (!e.empty()) return e;
  if (t.tBURST * m.transfers_per_clock != m.burst_length)
    add("timing.tBURST", fmt::format("expected burst_length / transfers_per_clock = {}, got {}",
                                     static_cast<double>(m.burst_length) / m.transfers_per_clock, t.tBURST));
  if (t.tRC < t.tRAS + t.tRP)
    add("timing.tRC", fmt::format("expected at least tRAS + tRP = {}, got {}", t.tRAS + t.tRP, t.tRC));
  if (t.tRFC >= t.tREFI)
    add("timing.tRFC", fmt::format("expected less than tREFI ({}), got {}", t.tREFI, t.tRFC));
  if ((t.tRFCpb == 0) != (t.tREFIpb == 0))
    add(t.tRFCpb == 0 ? "timing.tRFCpb" : "timing.tREFIpb",
        "expected tRFCpb and tREFIpb together (per-bank refresh)");
  else if (t.tRFCpb != 0 && t.tRFCpb >= t.tREFIpb)
    add("timing.tRFCpb", fmt::format("expected less than tREFIpb ({}), got {}", t.tREFIpb, t.tRFCpb));
  if (t.tCCD_L < t.tCCD)
    add("timing.tCCD_L", fmt::format("expected at least tCCD ({}), got {}", t.tCCD, t.tCCD_L));
  if (t.tRRD_L < t.tRRD)
    add("timing.tRRD_L", fmt::format("expected at least tRRD ({}), got {}", t.tRRD, t.tRRD_L));
  if (t.tWTR_L < t.tWTR)
    add("timing.tWTR_L", fmt::format("expected at least tWTR ({}), got {}", t.tWTR, t.tWTR_L));
  const std::pair<const char*, double> energy[] = {{"activate", m.energy.activate},
                                                   {"read", m.energy.read},
                                                   {"write", m.energy.write},
                                                   {"refresh", m.energy.refresh}};
  for (const auto& [name, v] : energy)
    if (!std::isfinite(v) || v < 0)
      add(fmt::format("energy_pj.{}", name), fmt::format("expected a non-negative number, got {}", v));
  return e;
}

core::Errors check_banked(const BankedDramConfig& b) {
  core::Errors e;
  const MemSpec& m = b.memspec;
  if (!power_of_two(b.channels) || b.channels > 1024)
    e.push_back({"channels", fmt::format("expected a power of two up to 1024, got {}", b.channels)});
  for (AddressField field : kFields) {
    const std::uint64_t count = address_field_values(b, field);
    if (count <= 1) continue;
    bool present = false;
    for (AddressField f : b.mapping) present = present || f == field;
    if (!present)
      e.push_back(
          {"mapping", fmt::format("misses {}: {} values need {} address bits", address_field_code(field),
                                  count, static_cast<int>(std::log2(static_cast<double>(count))))});
  }
  if (b.refresh == RefreshMode::kPerBank && (m.t.tRFCpb == 0 || m.t.tREFIpb == 0))
    e.push_back({"refresh", fmt::format("per_bank needs tRFCpb and tREFIpb in memspec {}", m.name)});
  if (b.controller_cycles > (std::uint64_t{1} << 24))
    e.push_back(
        {"controller_cycles", fmt::format("expected at most 2^24 cycles, got {}", b.controller_cycles)});
  return e;
}

double banked_peak_bytes_per_cycle(const BankedDramConfig& b, double clock_ghz) {
  return b.memspec.peak_bytes_per_second() * static_cast<double>(b.channels) / (clock_ghz * 1e9);
}

std::uint64_t banked_row_hit_latency(const BankedDramConfig& b, double clock_ghz) {
  const double mem_cycles = static_cast<double>(b.memspec.t.tCL + b.memspec.t.tBURST);
  return static_cast<std::uint64_t>(std::ceil(mem_cycles * clock_ghz * 1000 / b.memspec.clock_mhz - 1e-9)) +
         2 * b.controller_cycles;
}

}  // namespace treesim::machine
