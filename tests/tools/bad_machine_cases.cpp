// Bad machine files: every one is refused with FILE:LINE:COL and the field it is about.
#include <fmt/format.h>

#include "tests/test_support.h"
#include "tests/tools/bad_input_cases.h"

namespace treesim::testing {

std::string mini_with(const std::vector<std::pair<std::string, std::string>>& edits) {
  std::string text = read_text(source_path("configs/mini.yaml"));
  for (const auto& [from, to] : edits) {
    const auto at = text.find(from);
    if (at == std::string::npos) return "edit not found: " + from;  // the case then fails visibly
    text.replace(at, from.size(), to);
  }
  return text;
}

namespace {

const std::string kL2B = "{ name: L2B, fanout: 1,";
const std::string kL1B = "{ name: L1B, fanout: 2,";
const std::string kPE = "{ name: PE,  fanout: 4, memory_bytes: 64KiB,";

BadInput info(std::string name, std::string machine, std::string fragment) {
  return {"Machine" + name,
          {"info", "--machine", "@D/m.yaml"},
          {{"m.yaml", std::move(machine)}},
          std::move(fragment)};
}

// A machine of `n` levels written with YAML aliases, so the file stays small.
std::string many_levels(std::size_t n) {
  std::string text =
      "name: deep\nclock_ghz: 1\ndram: { bytes: 1GiB, bytes_per_cycle: 1, latency_cycles: 1 }\nlevels:\n"
      "  - &l { name: L, fanout: 1, memory_bytes: 1, down_bytes_per_cycle: 1, up_bytes_per_cycle: 1, "
      "latency_cycles: 0 }\n";
  for (std::size_t i = 1; i < n; ++i) text += "  - *l\n";
  return text +
         "pe: { mac: { int8_macs_per_cycle: 1, latency_cycles: 1 }, dpt_decoder: { bytes_per_cycle: 1, "
         "latency_cycles: 1 }, requant: { values_per_cycle: 1, latency_cycles: 1 } }\n";
}

// Distinct level names, so the level limit is what refuses it.
std::string numbered_levels(std::size_t n) {
  std::string levels;
  for (std::size_t i = 0; i < n; ++i)
    levels += fmt::format(
        "  - {{ name: L{}, fanout: 1, memory_bytes: 1, down_bytes_per_cycle: 1, up_bytes_per_cycle: 1, "
        "latency_cycles: 0 }}\n",
        i);
  return mini_with({{"levels:", "levels:\n" + levels + "#"}});
}

}  // namespace

// mini with a banked DRAM whose memspec is inline (every timing given, each edit breaks one thing).
const std::string kMiniDram = "dram:   { bytes: 1GiB, bytes_per_cycle: 64, latency_cycles: 100 }";
const std::string kInlineMemspec =
    "{ name: t, clock_mhz: 1000, data_bits: 16, transfers_per_clock: 2, burst_length: 8, bank_groups: 2, "
    "banks_per_group: 2, rows: 1024, row_bytes: 1KiB, timing: { tRCD: 10, tRP: 10, tCL: 10, tWL: 5, tRAS: "
    "20, "
    "tRC: 30, tCCD: 4, tRRD: 4, tFAW: 16, tWTR: 4, tRTP: 4, tWR: 10, tBURST: 4, tREFI: 4000, tRFC: 200 } }";
std::string banked_mini(const std::string& memspec, const std::string& rest) {
  return mini_with(
      {{kMiniDram, "dram: { bytes: 4MiB, model: banked, banked: { memspec: " + memspec + rest + " } }"}});
}

std::vector<BadInput> dram_cases() {
  const std::string ok = ", mapping: RoBaBgCoCh";
  return {
      info("BankedMemspecWithZeroTrc",
           banked_mini(std::string(kInlineMemspec).replace(kInlineMemspec.find("tRC: 30"), 7, "tRC: 0"), ok),
           "dram.banked.memspec.timing.tRC': expected a positive number of cycles, got 0"),
      info("BankedMemspecTrcBelowTrasPlusTrp",
           banked_mini(std::string(kInlineMemspec).replace(kInlineMemspec.find("tRC: 30"), 7, "tRC: 29"), ok),
           "timing.tRC': expected at least tRAS + tRP = 30, got 29"),
      info("BankedMappingMissingBankGroupBits", banked_mini(kInlineMemspec, ", mapping: RoBaCo"),
           "field 'dram.banked.mapping': misses Bg: 2 values need 1 address bits"),
      info("BankedMappingWithAnUnknownField", banked_mini(kInlineMemspec, ", mapping: RoBaBgCoXx"),
           "'Xx' is not a field"),
      info("BankedMappingWithAFieldTwice", banked_mini(kInlineMemspec, ", mapping: RoBaBgCoBa"),
           "'Ba' appears twice"),
      info("BankedChannelsNotAPowerOfTwo", banked_mini(kInlineMemspec, ok + ", channels: 3"),
           "dram.banked.channels': expected a power of two"),
      info("BankedDramLargerThanItsBanks",
           mini_with({{kMiniDram, "dram: { bytes: 1GiB, model: banked, banked: { memspec: " + kInlineMemspec +
                                      ok + " } }"}}),
           "field 'dram.bytes': 1073741824 bytes, but 1 channel(s) of t address 4194304 bytes"),
      info("BankedWithAGivenRate",
           mini_with(
               {{kMiniDram, "dram: { bytes: 4MiB, bytes_per_cycle: 8, model: banked, banked: { memspec: " +
                                kInlineMemspec + ok + " } }"}}),
           "the banked model derives it from its memspec"),
      info("BankedMemspecFileMissing", banked_mini("none.yaml", ok), "field 'dram.banked.memspec'"),
      info("ChannelsThatDoNotDivideIntoInterleavingUnits",
           mini_with({{kMiniDram,
                       "dram: { bytes: 1000064, bytes_per_cycle: 64, latency_cycles: 100, per: L2B, "
                       "placement: interleave, interleave_bytes: 4KiB }"}}),
           "do not divide into interleaving units of 4096 bytes"),
      info("ChannelsPerAnUnknownLevel",
           mini_with(
               {{kMiniDram, "dram: { bytes: 1GiB, bytes_per_cycle: 64, latency_cycles: 100, per: Rack }"}}),
           "field 'dram.per': expected the name of a level of this machine"),
      info("ChannelsBelowTheFirstLevel",
           mini_with(
               {{kMiniDram, "dram: { bytes: 1GiB, bytes_per_cycle: 64, latency_cycles: 100, per: L1B }"}}),
           "channels can be attached to the first level (L2B) only"),
      info("UnknownDramPlacement",
           mini_with({{kMiniDram,
                       "dram: { bytes: 1GiB, bytes_per_cycle: 64, latency_cycles: 100, per: L2B, "
                       "placement: rows }"}}),
           "field 'dram.placement': expected layout, split or interleave"),
      info(
          "MoreDramChannelsThanTheLimit",
          mini_with({{kMiniDram, "dram: { bytes: 1GiB, bytes_per_cycle: 64, latency_cycles: 100, per: L2B }"},
                     {kL2B, "{ name: L2B, fanout: 2048,"}}),
          "field 'dram.per': L2B has 2048 units, at most 1024 DRAM channels"),
      info("UnknownDramModel",
           mini_with(
               {{kMiniDram, "dram: { bytes: 1GiB, bytes_per_cycle: 64, latency_cycles: 100, model: ddr }"}}),
           "field 'dram.model': expected simple or banked"),
      info("ZeroInstructionStep", mini_with({{"pe:\n", "pe:\n  instruction_step_cycles: 0\n"}}),
           "pe.instruction_step_cycles': expected a positive integer"),
  };
}

std::vector<BadInput> machine_cases() {
  std::vector<BadInput> dram = dram_cases();
  std::vector<BadInput> cases = {
      info("ZeroFanout", mini_with({{kL1B, "{ name: L1B, fanout: 0,"}}), "levels[1].fanout"),
      info(
          "FanoutsWrapTo0",
          mini_with({{kL2B, "{ name: L2B, fanout: 4294967296,"}, {kL1B, "{ name: L1B, fanout: 4294967296,"}}),
          "levels[0].fanout"),
      info("Fanout2To40", mini_with({{kL2B, "{ name: L2B, fanout: 1099511627776,"}}), "at most 1048576"),
      info("MillionPesTimesLm",
           mini_with(
               {{kL2B, "{ name: L2B, fanout: 62500,"}, {kPE, "{ name: PE,  fanout: 2, memory_bytes: 1MiB,"}}),
           ".memory_bytes': "),
      info("LmOf16MillionTiB", mini_with({{"memory_bytes: 64KiB", "memory_bytes: 16777216TiB"}}),
           "levels[3].memory_bytes"),
      info("LmPastTheTotalLimit", mini_with({{"memory_bytes: 64KiB", "memory_bytes: 1048575TiB"}}), "64 GiB"),
      info("ZeroDramRate",
           mini_with(
               {{"bytes_per_cycle: 64, latency_cycles: 100", "bytes_per_cycle: 0, latency_cycles: 100"}}),
           "dram.bytes_per_cycle"),
      info("ZeroDramBytes", mini_with({{"bytes: 1GiB", "bytes: 0"}}), "dram.bytes"),
      info("ZeroQuantum", mini_with({{"clock_ghz: 1.0", "clock_ghz: 1.0\nquantum_cycles: 0"}}),
           "quantum_cycles"),
      info("QuantumPast2To40",
           mini_with({{"clock_ghz: 1.0", "clock_ghz: 1.0\nquantum_cycles: 1099511627777"}}),
           "quantum_cycles"),
      info("ZeroMacRate", mini_with({{"int8_macs_per_cycle: 64", "int8_macs_per_cycle: 0"}}),
           "pe.mac.int8_macs_per_cycle"),
      info("ZeroRequantRate", mini_with({{"values_per_cycle: 8", "values_per_cycle: 0"}}),
           "pe.requant.values_per_cycle"),
      info("ZeroCopyRate", mini_with({{"pe:\n", "pe:\n  copy: { bytes_per_cycle: 0, latency_cycles: 1 }\n"}}),
           "pe.copy.bytes_per_cycle"),
      info("ZeroDownRate", mini_with({{"down_bytes_per_cycle: 16", "down_bytes_per_cycle: 0"}}),
           "levels[2].down_bytes_per_cycle"),
      info("ZeroUpRate", mini_with({{"up_bytes_per_cycle: 8,", "up_bytes_per_cycle: 0,"}}),
           "levels[3].up_bytes_per_cycle"),
      info("HugeRate", mini_with({{"int8_macs_per_cycle: 64", "int8_macs_per_cycle: 8589934592"}}),
           "pe.mac.int8_macs_per_cycle"),
      info("HugeLatency", mini_with({{"latency_cycles: 100", "latency_cycles: 1099511627776"}}),
           "dram.latency_cycles"),
      info("HugeWordsPerAddress", mini_with({{"pe:\n", "pe:\n  words_per_address: 5000\n"}}),
           "pe.words_per_address"),
      info("ZeroWordsPerAddress", mini_with({{"pe:\n", "pe:\n  words_per_address: 0\n"}}),
           "pe.words_per_address"),
      info("HexFloatClock", mini_with({{"clock_ghz: 1.0", "clock_ghz: 0x1p3"}}), "clock_ghz"),
      info("InfClock", mini_with({{"clock_ghz: 1.0", "clock_ghz: inf"}}), "clock_ghz"),
      info("NanClock", mini_with({{"clock_ghz: 1.0", "clock_ghz: nan"}}), "clock_ghz"),
      info("OverflowingClock", mini_with({{"clock_ghz: 1.0", "clock_ghz: 1e999"}}), "clock_ghz"),
      info("ClockPastTheLimit", mini_with({{"clock_ghz: 1.0", "clock_ghz: 5000"}}), "clock_ghz"),
      info("HexFloatEnergy", mini_with({{"mac_int8_pj: 0.2", "mac_int8_pj: 0x1.8p1"}}), "energy.mac_int8_pj"),
      info("NameWithControlCharacter", mini_with({{"name: mini", "name: \"mi\\u0001ni\""}}), "field 'name'"),
      info("NameWithInvalidUtf8", mini_with({{"name: mini", "name: mi\xff\xfeni"}}), "m.yaml:"),
      info("NameTooLong", mini_with({{"name: mini", "name: " + std::string(300, 'n')}}), "field 'name'"),
      info("ReservedLevelNameB", mini_with({{"name: MAB", "name: B"}}), "reserved"),
      info("DuplicateLevelName", mini_with({{"name: MAB", "name: L1B"}}), "used twice"),
      info("LevelNameWithDash", mini_with({{"name: MAB", "name: M-B"}}), "levels[2].name"),
      info("SixtyFiveLevels", numbered_levels(61), "at most 64 levels, got 65"),
      info("TwentyThousandLevels", many_levels(20000), "at most 64 levels, got 20000"),
      info("LongUnknownKey", mini_with({{"pe:\n", std::string(200, 'k') + ": 1\npe:\n"}}), "..."),
      info("UnknownKeyWithNewline", mini_with({{"pe:\n", "\"a\\nb\": 1\npe:\n"}}), "unknown field 'a\\nb'"),
      info("NegativeLatency", mini_with({{"latency_cycles: 100", "latency_cycles: -1"}}),
           "dram.latency_cycles"),
      info("EnergyOfUnknownLevel", mini_with({{"MAB: 2,", "XYZ: 2,"}}), "energy.link_byte_pj"),
      info("DeeplyNestedYaml", std::string(100000, '['), "m.yaml:"),
      info("TooLarge", "<sparse:2097152>", "larger than 1 MiB (1048576 bytes)"),
      {"MachineIsADirectory", {"info", "--machine", "@D"}, {}, "is a directory, expected a machine file"},
      {"MachineIsDevZero", {"info", "--machine", "/dev/zero"}, {}, "/dev/zero:1:1: not a regular file"},
      {"MachineIsMissing", {"info", "--machine", "@D/missing.yaml"}, {}, "does it exist?"},
      {"MachineIsASymlinkLoop",
       {"info", "--machine", "@D/loop.yaml"},
       {{"loop.yaml", "<symlink-loop>"}},
       "loop of symbolic links"},
      {"MachineIsNotReadable",
       {"info", "--machine", "@D/m.yaml"},
       {{"m.yaml", "<mode000>"}},
       "permission denied",
       true},
      {"TopologyOfADirectory", {"topology", "--dot", "--machine", "@D"}, {}, "is a directory"},
  };
  cases.insert(cases.end(), dram.begin(), dram.end());
  return cases;
}

}  // namespace treesim::testing
