#include "sim/machine/validate.h"

#include <cctype>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "sim/core/checked.h"
#include "sim/core/echo.h"

namespace treesim::machine {
namespace {

using L = MachineLimits;

class Checker {
 public:
  void add(std::string where, std::string what) { errors_.push_back({std::move(where), std::move(what)}); }

  // A rate: zero would make a transfer take zero cycles (or divide by zero), so it is an error.
  void rate(const std::string& where, std::uint64_t v) {
    if (v == 0)
      add(where, "expected a positive integer, got 0");
    else if (v > L::kMaxRate)
      add(where, fmt::format("expected at most {} per cycle, got {}", L::kMaxRate, v));
  }
  void latency(const std::string& where, std::uint64_t v) {
    if (v > L::kMaxLatency) add(where, fmt::format("expected at most {} cycles, got {}", L::kMaxLatency, v));
  }
  void name(const std::string& where, const std::string& v) {
    bool ok = !v.empty() && v.size() <= 64 && std::isalpha(static_cast<unsigned char>(v[0]));
    for (char c : v) ok = ok && std::isalnum(static_cast<unsigned char>(c));
    if (!ok)
      add(where, "expected a level name (a letter, then letters or digits, at most 64)");
    else if (is_reserved_level_name(v))
      add(where, fmt::format("'{}' is reserved in layouts (W, Time and B cannot name a level)", v));
  }
  std::vector<core::Error> take() { return std::move(errors_); }

 private:
  std::vector<core::Error> errors_;
};

bool printable(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f) return false;
  return true;
}

// Well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF): the name is
// printed in reports and JSON, which must not carry broken text.
bool valid_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    std::uint32_t cp = n == 1 ? c : c & (0x7F >> n);
    for (std::size_t k = 1; k < n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d >> 6) != 0x2) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    static constexpr std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += n;
  }
  return true;
}

void check_levels(const MachineConfig& c, Checker& k) {
  if (c.levels.empty()) {
    k.add("levels", "expected a non-empty list of levels (root-most first, the PE last), got none");
    return;
  }
  if (c.levels.size() > L::kMaxLevels) {
    // Checked first and alone: nothing about the levels is looked at, so a hostile count costs nothing.
    k.add("levels", fmt::format("expected at most {} levels, got {}", L::kMaxLevels, c.levels.size()));
    return;
  }
  std::set<std::string> names;
  std::uint64_t units = 1, all_units = 1, memory = 0;
  bool overflow = false;  // reported once, at the first level where it happens
  for (std::size_t i = 0; i < c.levels.size(); ++i) {
    const LevelConfig& l = c.levels[i];
    const std::string p = fmt::format("levels[{}]", i);
    k.name(p + ".name", l.name);
    if (!l.name.empty() && !names.insert(l.name).second)
      k.add(p + ".name", fmt::format("level name '{}' is used twice", l.name));
    if (l.fanout == 0) k.add(p + ".fanout", "expected a positive integer, got 0");
    const bool is_pe = i + 1 == c.levels.size();
    if (is_pe && l.memory_bytes == 0)
      k.add(p + ".memory_bytes", "expected a positive size in bytes (the PE's LM), got 0");
    k.rate(p + ".down_bytes_per_cycle", l.down_bytes_per_cycle);
    k.rate(p + ".up_bytes_per_cycle", l.up_bytes_per_cycle);
    k.latency(p + ".latency_cycles", l.latency_cycles);
    if (overflow || l.fanout == 0) continue;
    const auto u = core::checked_mul(units, l.fanout);
    const auto all = u ? core::checked_add(all_units, *u) : std::nullopt;
    const auto mem_here = u ? core::checked_mul(*u, l.memory_bytes) : std::nullopt;
    const auto mem = mem_here ? core::checked_add(memory, *mem_here) : std::nullopt;
    if (!u || *u > L::kMaxPes) {
      k.add(p + ".fanout", fmt::format("the fan-outs down to {} give {} units; at most {} are allowed",
                                       l.name, u ? std::to_string(*u) : "more than 2^64", L::kMaxPes));
      overflow = true;
    } else if (!all || *all > L::kMaxUnits) {
      k.add(p + ".fanout",
            fmt::format("the machine would have more than {} units in all levels", L::kMaxUnits));
      overflow = true;
    } else if (!mem || *mem > L::kMaxTotalMemory) {
      k.add(p + ".memory_bytes",
            fmt::format("{} units of {} bytes bring the memory of all levels past the limit of {} bytes "
                        "(64 GiB)",
                        *u, l.memory_bytes, L::kMaxTotalMemory));
      overflow = true;
    } else {
      units = *u;
      all_units = *all;
      memory = *mem;
    }
  }
}

}  // namespace

std::vector<core::Error> validate(const MachineConfig& c) {
  Checker k;
  if (c.name.empty())
    k.add("name", "expected a non-empty string, got nothing");
  else if (c.name.size() > L::kMaxNameLength)
    k.add("name", fmt::format("expected at most {} characters, got {}", L::kMaxNameLength, c.name.size()));
  else if (!printable(c.name) || !valid_utf8(c.name))
    k.add("name", fmt::format("expected printable UTF-8 text, got '{}'", core::echo(c.name)));
  if (!std::isfinite(c.clock_ghz) || c.clock_ghz <= 0 || c.clock_ghz > L::kMaxClockGhz)
    k.add("clock_ghz",
          fmt::format("expected a positive number of GHz up to {}, got {}", L::kMaxClockGhz, c.clock_ghz));
  if (c.quantum_cycles == 0 || c.quantum_cycles > L::kMaxQuantum)
    k.add("quantum_cycles", fmt::format("expected 1 to {} cycles, got {}", L::kMaxQuantum, c.quantum_cycles));
  if (c.dram.bytes == 0) k.add("dram.bytes", "expected a positive size in bytes, got 0");
  k.rate("dram.bytes_per_cycle", c.dram.bytes_per_cycle);
  k.latency("dram.latency_cycles", c.dram.latency_cycles);
  if (c.dram.model == DramModel::kBanked && !c.dram.banked)
    k.add("dram.banked", "missing (model: banked needs it)");
  if (c.dram.banked) {
    for (const core::Error& e : check_memspec(c.dram.banked->memspec))
      k.add("dram.banked.memspec." + e.where, e.what);
    for (const core::Error& e : check_banked(*c.dram.banked)) k.add("dram.banked." + e.where, e.what);
  }
  if (c.dram.per_level && (*c.dram.per_level != 0 || c.levels.size() < 2))
    k.add("dram.per", "expected the first level of a machine with at least two levels");
  if (c.dram.interleave_bytes == 0 || c.dram.interleave_bytes % 64 != 0)
    k.add("dram.interleave_bytes", fmt::format("expected a multiple of 64, got {}", c.dram.interleave_bytes));
  check_levels(c, k);
  k.rate("pe.mac.int8_macs_per_cycle", c.pe.mac.int8_macs_per_cycle);
  k.latency("pe.mac.latency_cycles", c.pe.mac.latency_cycles);
  k.rate("pe.dpt_decoder.bytes_per_cycle", c.pe.dpt_decoder.bytes_per_cycle);
  k.latency("pe.dpt_decoder.latency_cycles", c.pe.dpt_decoder.latency_cycles);
  if (c.pe.base3_decoder) {
    k.rate("pe.base3_decoder.bytes_per_cycle", c.pe.base3_decoder->bytes_per_cycle);
    k.latency("pe.base3_decoder.latency_cycles", c.pe.base3_decoder->latency_cycles);
  }
  if (c.pe.ternary_mac) {
    k.rate("pe.ternary_mac.macs_per_cycle", c.pe.ternary_mac->macs_per_cycle);
    k.latency("pe.ternary_mac.latency_cycles", c.pe.ternary_mac->latency_cycles);
  }
  if (c.pe.sparse_mac) {
    k.rate("pe.sparse_mac.items_per_cycle", c.pe.sparse_mac->items_per_cycle);
    k.latency("pe.sparse_mac.latency_cycles", c.pe.sparse_mac->latency_cycles);
    const machine::SparseMacConfig& sm = *c.pe.sparse_mac;
    if (sm.entry_items == 0) k.add("pe.sparse_mac.entry_items", "expected a positive integer, got 0");
    for (const auto& [where, v] : {std::pair{"pe.sparse_mac.entry_items", sm.entry_items},
                                   std::pair{"pe.sparse_mac.segment_items", sm.segment_items}})
      if (v > L::kMaxRate) k.add(where, fmt::format("expected at most {} items, got {}", L::kMaxRate, v));
    for (std::size_t i = 0; i < sm.level_items.size(); ++i)
      if (sm.level_items[i] > L::kMaxRate)
        k.add(fmt::format("pe.sparse_mac.level_items.{}", machine::kSparseLevelKinds[i]),
              fmt::format("expected at most {} items, got {}", L::kMaxRate, sm.level_items[i]));
  }
  k.rate("pe.requant.values_per_cycle", c.pe.requant.values_per_cycle);
  k.latency("pe.requant.latency_cycles", c.pe.requant.latency_cycles);
  if (c.pe.vector) {
    k.rate("pe.vector.values_per_cycle", c.pe.vector->values_per_cycle);
    k.latency("pe.vector.latency_cycles", c.pe.vector->latency_cycles);
    for (const auto& [op, cost] : c.pe.vector->ops) {
      const std::string at = fmt::format("pe.vector.ops.{}", core::vector_op_name(op));
      k.rate(at + ".cycles_per_value", cost.cycles_per_value);
      k.latency(at + ".latency_cycles", cost.latency_cycles);
    }
  }
  k.rate("pe.copy.bytes_per_cycle", c.pe.copy.bytes_per_cycle);
  k.latency("pe.copy.latency_cycles", c.pe.copy.latency_cycles);
  if (c.pe.words_per_address == 0 || c.pe.words_per_address > L::kMaxWordsPerAddress)
    k.add("pe.words_per_address", fmt::format("expected a positive integer up to {}, got {}",
                                              L::kMaxWordsPerAddress, c.pe.words_per_address));
  if (c.pe.instruction_step_cycles == 0 || c.pe.instruction_step_cycles > L::kMaxLatency)
    k.add("pe.instruction_step_cycles",
          fmt::format("expected 1 to {} cycles, got {}", L::kMaxLatency, c.pe.instruction_step_cycles));
  if (c.energy) {
    const EnergyConfig& e = *c.energy;
    const auto energy = [&](const std::string& where, double v) {
      if (!std::isfinite(v) || v < 0) k.add(where, fmt::format("expected a non-negative number, got {}", v));
    };
    energy("energy.mac_int8_pj", e.mac_int8_pj);
    energy("energy.lm_byte_pj", e.lm_byte_pj);
    energy("energy.dram_byte_pj", e.dram_byte_pj);
    if (e.vector_lane_cycle_pj) energy("energy.vector_lane_cycle_pj", *e.vector_lane_cycle_pj);
    for (const auto& [level, pj] : e.link_byte_pj) {
      if (!c.level_index(level))
        k.add("energy.link_byte_pj." + core::echo(level), "expected the name of a level of this machine");
      energy("energy.link_byte_pj." + core::echo(level), pj);
    }
  }
  return k.take();
}

}  // namespace treesim::machine
