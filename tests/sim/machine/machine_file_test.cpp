#include "sim/machine/machine_file.h"

#include <gtest/gtest.h>

#include <array>

#include <regex>

#include "tests/test_support.h"

namespace treesim::machine {
namespace {

using testing::source_path;

// A valid machine; each malformed case below changes one thing in it.
const char* kValid = R"(name: t
clock_ghz: 1.0
dram: { bytes: 1GiB, bytes_per_cycle: 64, latency_cycles: 100 }
levels:
  - { name: L2B, fanout: 1, memory_bytes: 4MiB, down_bytes_per_cycle: 64, up_bytes_per_cycle: 64, latency_cycles: 8, reduce: true }
  - { name: PE, fanout: 4, memory_bytes: 64KiB, down_bytes_per_cycle: 8, up_bytes_per_cycle: 8, latency_cycles: 1 }
pe:
  mac: { int8_macs_per_cycle: 64, latency_cycles: 4 }
  dpt_decoder: { bytes_per_cycle: 4, latency_cycles: 2 }
  requant: { values_per_cycle: 8, latency_cycles: 3 }
)";

std::string replace(std::string text, const std::string& from, const std::string& to) {
  auto pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  return text.replace(pos, from.size(), to);
}

// Parses `text` and returns the error message (or "" when it parsed).
std::string error_of(const std::string& text) {
  try {
    parse_machine_yaml(text, "m.yaml");
  } catch (const MachineFileError& e) {
    return e.what();
  }
  return "";
}

TEST(MachineFile, ValidFileParses) {
  MachineConfig c = parse_machine_yaml(kValid, "m.yaml");
  EXPECT_EQ(c.name, "t");
  ASSERT_EQ(c.levels.size(), 2u);
  EXPECT_EQ(c.levels[1].memory_bytes, 64u * 1024);
  EXPECT_EQ(c.dram.bytes, 1ull << 30);
  EXPECT_TRUE(c.levels[0].reduce);
  EXPECT_FALSE(c.levels[1].reduce);  // default
  EXPECT_EQ(c.pe.words_per_address, 1u);
  EXPECT_FALSE(c.energy.has_value());
}

TEST(MachineFile, TheQuantumIsOptionalWithADefault) {
  EXPECT_EQ(parse_machine_yaml(kValid, "m.yaml").quantum_cycles, 1000u);
  EXPECT_EQ(
      parse_machine_yaml(replace(kValid, "clock_ghz: 1.0", "clock_ghz: 1.0\nquantum_cycles: 250"), "m.yaml")
          .quantum_cycles,
      250u);
  EXPECT_NE(error_of(replace(kValid, "clock_ghz: 1.0", "clock_ghz: 1.0\nquantum_cycles: -1"))
                .find("quantum_cycles"),
            std::string::npos);
}

TEST(MachineFile, ZeroFanoutNamesFieldLineAndColumn) {
  std::string e = error_of(replace(kValid, "fanout: 4", "fanout: 0"));
  EXPECT_EQ(e, "m.yaml:6:25: field 'levels[1].fanout': expected a positive integer, got '0'");
}

TEST(MachineFile, NegativeFanoutIsRejected) {
  EXPECT_EQ(error_of(replace(kValid, "fanout: 4", "fanout: -2")),
            "m.yaml:6:25: field 'levels[1].fanout': expected a positive integer, got '-2'");
}

TEST(MachineFile, MissingFieldIsNamed) {
  EXPECT_EQ(error_of(replace(kValid, "latency_cycles: 100 ", "")),
            "m.yaml:3:7: field 'dram.latency_cycles': missing (it is required)");
}

TEST(MachineFile, WrongTypeIsRejected) {
  EXPECT_EQ(error_of(replace(kValid, "clock_ghz: 1.0", "clock_ghz: fast")),
            "m.yaml:2:12: field 'clock_ghz': expected a positive number, got 'fast'");
}

TEST(MachineFile, UnknownKeyIsRejected) {
  std::string e = error_of(replace(kValid, "latency_cycles: 8,", "latency_cycles: 8, lantency: 3,"));
  EXPECT_EQ(e.rfind("m.yaml:5:", 0), 0u) << e;
  EXPECT_NE(e.find("unknown field 'levels[0].lantency'"), std::string::npos) << e;
}

TEST(MachineFile, SparseWalkCostsAreReadWithDefaults) {
  const MachineConfig plain = parse_machine_yaml(
      replace(kValid, "  requant:", "  sparse_mac: { items_per_cycle: 2, latency_cycles: 1 }\n  requant:"),
      "m.yaml");
  ASSERT_TRUE(plain.pe.sparse_mac);
  EXPECT_EQ(plain.pe.sparse_mac->entry_items, 1u);
  EXPECT_EQ(plain.pe.sparse_mac->segment_items, 1u);
  EXPECT_FALSE(plain.pe.sparse_mac->charges_levels());
  const MachineConfig costed = parse_machine_yaml(
      replace(kValid, "  requant:",
              "  sparse_mac: { items_per_cycle: 1, latency_cycles: 1, entry_items: 2, segment_items: 0,\n"
              "                level_items: { singleton: 1, n_of_m: 3 } }\n  requant:"),
      "m.yaml");
  EXPECT_EQ(costed.pe.sparse_mac->entry_items, 2u);
  EXPECT_EQ(costed.pe.sparse_mac->segment_items, 0u);
  EXPECT_EQ(costed.pe.sparse_mac->level_items, (std::array<std::uint64_t, 4>{0, 0, 1, 3}));
}

std::string with_vector(const std::string& section) {
  return replace(kValid, "  requant:", "  vector:\n" + section + "  requant:");
}

TEST(MachineFile, TheVectorUnitIsReadWithItsPricedOperations) {
  const MachineConfig m = parse_machine_yaml(
      with_vector("    values_per_cycle: 8\n    latency_cycles: 2\n"
                  "    ops: { exp: { cycles_per_value: 4, latency_cycles: 6, assumed: true },\n"
                  "           add: { cycles_per_value: 1, latency_cycles: 0, assumed: false } }\n"),
      "m.yaml");
  ASSERT_TRUE(m.pe.vector);
  EXPECT_EQ(m.pe.vector->values_per_cycle, 8u);
  ASSERT_TRUE(m.pe.vector->cost(core::VectorOp::kExp));
  EXPECT_EQ(m.pe.vector->cost(core::VectorOp::kExp)->cycles_per_value, 4u);
  EXPECT_TRUE(m.pe.vector->cost(core::VectorOp::kExp)->assumed);
  EXPECT_FALSE(m.pe.vector->cost(core::VectorOp::kAdd)->assumed);
  EXPECT_EQ(m.pe.vector->cost(core::VectorOp::kMul)->cycles_per_value, 1u);  // simple: the default
  EXPECT_FALSE(m.pe.vector->cost(core::VectorOp::kRsqrt));                   // must be listed
  EXPECT_FALSE(parse_machine_yaml(kValid, "m.yaml").pe.vector);
}

TEST(MachineFile, BadVectorSectionsAreNamed) {
  const std::string base = "    values_per_cycle: 8\n    latency_cycles: 2\n";
  std::string e = error_of(
      with_vector(base + "    ops: { tanh: { cycles_per_value: 4, latency_cycles: 6, assumed: true } }\n"));
  EXPECT_NE(e.find("pe.vector.ops.tanh"), std::string::npos) << e;
  e = error_of(with_vector(base + "    ops: { exp: { cycles_per_value: 4, latency_cycles: 6 } }\n"));
  EXPECT_NE(e.find("pe.vector.ops.exp.assumed"), std::string::npos) << e;
  e = error_of(
      with_vector(base + "    ops: { exp: { cycles_per_value: 0, latency_cycles: 6, assumed: true } }\n"));
  EXPECT_NE(e.find("pe.vector.ops.exp.cycles_per_value"), std::string::npos) << e;
  e = error_of(with_vector("    values_per_cycle: 0\n    latency_cycles: 2\n"));
  EXPECT_NE(e.find("pe.vector.values_per_cycle"), std::string::npos) << e;
  e = error_of(with_vector("    latency_cycles: 2\n"));
  EXPECT_NE(e.find("values_per_cycle"), std::string::npos) << e;
}

TEST(MachineFile, AnUnknownSparseLevelKindIsNamed) {
  const std::string e = error_of(replace(
      kValid, "  requant:",
      "  sparse_mac: { items_per_cycle: 1, latency_cycles: 1, level_items: { sparse: 1 } }\n  requant:"));
  EXPECT_NE(e.find("pe.sparse_mac.level_items.sparse"), std::string::npos) << e;
}

TEST(MachineFile, BadSizeSuffixIsRejected) {
  std::string e = error_of(replace(kValid, "memory_bytes: 4MiB", "memory_bytes: 4MB"));
  EXPECT_EQ(e.rfind("m.yaml:5:", 0), 0u) << e;
  EXPECT_NE(e.find("field 'levels[0].memory_bytes': expected a size in bytes"), std::string::npos) << e;
  EXPECT_NE(e.find("got '4MB'"), std::string::npos) << e;
}

TEST(MachineFile, ZeroByteLmIsRejected) {
  std::string e = error_of(replace(kValid, "memory_bytes: 64KiB", "memory_bytes: 0"));
  EXPECT_EQ(e.rfind("m.yaml:6:", 0), 0u) << e;
  EXPECT_NE(e.find("field 'levels[1].memory_bytes': expected a positive size"), std::string::npos) << e;
}

TEST(MachineFile, ZeroMemoryIsAllowedAboveThePe) {
  EXPECT_EQ(error_of(replace(kValid, "memory_bytes: 4MiB", "memory_bytes: 0")), "");
}

TEST(MachineFile, DuplicateLevelNamesAreRejected) {
  EXPECT_EQ(error_of(replace(kValid, "name: PE", "name: L2B")),
            "m.yaml:6:13: field 'levels[1].name': level name 'L2B' is used twice");
}

TEST(MachineFile, ReservedLevelNamesAreRejected) {
  for (const char* word : {"W", "Time", "B"}) {
    std::string e = error_of(replace(kValid, "name: PE", std::string("name: ") + word));
    EXPECT_EQ(e.rfind("m.yaml:6:13: field 'levels[1].name': '", 0), 0u) << e;
    EXPECT_NE(e.find("reserved"), std::string::npos) << e;
  }
}

TEST(MachineFile, EmptyLevelListIsRejected) {
  std::string text = kValid;
  auto from = text.find("levels:");
  auto to = text.find("pe:");
  text.replace(from, to - from, "levels: []\n");
  std::string e = error_of(text);
  EXPECT_EQ(e.rfind("m.yaml:4:9: field 'levels': expected a non-empty list", 0), 0u) << e;
}

TEST(MachineFile, NonYamlTextIsRejected) {
  std::string e = error_of("name: [unclosed\nclock_ghz: 1\n");
  EXPECT_TRUE(std::regex_search(e, std::regex("^m\\.yaml:[0-9]+:[0-9]+: not valid YAML"))) << e;
}

TEST(MachineFile, PlainTextIsNotAMachine) {
  std::string e = error_of("just some words\n");
  EXPECT_EQ(e.rfind("m.yaml:1:1: expected a machine description", 0), 0u) << e;
}

TEST(MachineFile, EmptyFileIsRejected) {
  std::string e = error_of("");
  EXPECT_EQ(e.rfind("m.yaml:1:1: the file is empty", 0), 0u) << e;
}

TEST(MachineFile, MissingFileIsRejected) {
  try {
    load_machine_file("/nonexistent/machine.yaml");
    FAIL() << "no error";
  } catch (const MachineFileError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent/machine.yaml:1:1: cannot open the machine file (does it exist?)");
  }
}

TEST(MachineFile, FieldGivenTwiceIsRejected) {
  std::string e = error_of(replace(kValid, "clock_ghz: 1.0\n", "clock_ghz: 1.0\nclock_ghz: 2.0\n"));
  EXPECT_NE(e.find("field 'clock_ghz' given twice"), std::string::npos) << e;
}

TEST(MachineFile, EnergyLinkKeysMustBeLevels) {
  std::string e =
      error_of(std::string(kValid) +
               "energy: { mac_int8_pj: 1, lm_byte_pj: 1, dram_byte_pj: 1, link_byte_pj: { MAB: 1 } }\n");
  EXPECT_NE(e.find("unknown field 'energy.link_byte_pj.MAB'"), std::string::npos) << e;
}

TEST(MachineFile, SizesAcceptBinarySuffixes) {
  std::uint64_t b = 0;
  EXPECT_TRUE(parse_size("4096", b));
  EXPECT_EQ(b, 4096u);
  EXPECT_TRUE(parse_size("64KiB", b));
  EXPECT_EQ(b, 65536u);
  EXPECT_TRUE(parse_size("2GiB", b));
  EXPECT_EQ(b, 2ull << 30);
  EXPECT_TRUE(parse_size("12B", b));
  EXPECT_EQ(b, 12u);
  EXPECT_FALSE(parse_size("4MB", b));
  EXPECT_FALSE(parse_size("-1KiB", b));
  EXPECT_FALSE(parse_size("KiB", b));
  EXPECT_FALSE(parse_size("99999999999TiB", b));
}

TEST(MachineFile, ShippedMachinesLoad) {
  for (const char* name : {"mini", "mncore-board", "mncore-die"}) {
    MachineConfig c = load_machine_file(source_path(std::string("configs/") + name + ".yaml"));
    EXPECT_EQ(c.name, name);
  }
}

TEST(MachineFile, ShippedPeCounts) {
  EXPECT_EQ(load_machine_file(source_path("configs/mini.yaml")).pe_count(), 32u);
  EXPECT_EQ(load_machine_file(source_path("configs/mncore-board.yaml")).pe_count(), 8192u);
  EXPECT_EQ(load_machine_file(source_path("configs/mncore-die.yaml")).pe_count(), 2048u);
}

}  // namespace
}  // namespace treesim::machine
