#include "sim/machine/machine_patch.h"

#include <gtest/gtest.h>

#include "sim/machine/machine_file.h"
#include "tests/test_support.h"

namespace treesim::machine {
namespace {

std::string mini() { return testing::read_text(testing::source_path("configs/mini.yaml")); }

MachineConfig patched(const std::vector<FieldSetting>& settings) {
  PatchResult r = patch_machine_yaml(mini(), settings);
  EXPECT_TRUE(r.errors.empty()) << r.errors.front().message();
  return parse_machine_yaml(r.yaml, "patched.yaml");
}

TEST(MachinePatch, SetsALevelByNameAndByIndex) {
  const MachineConfig m = patched({{"levels[PE].memory_bytes", "16KiB"}, {"levels[1].fanout", "3"}});
  EXPECT_EQ(m.levels[3].memory_bytes, 16u * 1024);
  EXPECT_EQ(m.levels[1].fanout, 3u);
  EXPECT_EQ(m.levels[0].fanout, 1u);  // the rest is the base's
}

TEST(MachinePatch, SetsNestedFields) {
  const MachineConfig m = patched({{"dram.bytes_per_cycle", "256"}, {"pe.mac.int8_macs_per_cycle", "128"}});
  EXPECT_EQ(m.dram.bytes_per_cycle, 256u);
  EXPECT_EQ(m.pe.mac.int8_macs_per_cycle, 128u);
  EXPECT_EQ(m.dram.latency_cycles, 100u);
}

TEST(MachinePatch, AMissingSectionIsAddedAndLeftToTheLoader) {
  PatchResult r = patch_machine_yaml(mini(), {{"pe.copy.bytes_per_cycle", "32"}});
  ASSERT_TRUE(r.errors.empty());
  // pe.copy needs both keys: the loader says so, as for a file written by hand.
  EXPECT_THROW(parse_machine_yaml(r.yaml, "p.yaml"), MachineFileError);
}

TEST(MachinePatch, AnInvalidValueGetsTheLoadersError) {
  PatchResult r = patch_machine_yaml(mini(), {{"levels[L1B].fanout", "0"}});
  ASSERT_TRUE(r.errors.empty());
  try {
    parse_machine_yaml(r.yaml, "p.yaml");
    FAIL() << "a fan-out of 0 was accepted";
  } catch (const MachineFileError& e) {
    EXPECT_EQ(e.message(), "field 'levels[1].fanout': expected a positive integer, got '0'");
  }
}

TEST(MachinePatch, PathsThatAddressNothingAreErrorsByPath) {
  auto error = [](const std::string& path) {
    PatchResult r = patch_machine_yaml(mini(), {{path, "1"}});
    return r.errors.empty() ? std::string("no error") : r.errors.front().message();
  };
  EXPECT_EQ(error("levels[L3B].fanout"),
            "levels[L3B].fanout: no entry of 'levels' is named 'L3B' (the names are L2B, L1B, MAB, PE)");
  EXPECT_EQ(error("levels[4].fanout"), "levels[4].fanout: 'levels' has 4 entries, so there is no [4]");
  EXPECT_EQ(error("dram[0].bytes"), "dram[0].bytes: 'dram' is not a list in the machine file");
  EXPECT_EQ(error("name.x"), "name.x: 'name' is not a mapping in the machine file");
  EXPECT_EQ(
      error("levels[PE]..fanout"),
      "levels[PE]..fanout: expected a field path such as dram.bytes_per_cycle or levels[PE].memory_bytes");
}

TEST(MachinePatch, MachineFieldsAreKnownByTheirFirstKey) {
  EXPECT_TRUE(is_machine_field_path("levels[PE].memory_bytes"));
  EXPECT_TRUE(is_machine_field_path("clock_ghz"));
  EXPECT_TRUE(is_machine_field_path("energy.link_byte_pj.L2B"));
  EXPECT_FALSE(is_machine_field_path("m"));
  EXPECT_FALSE(is_machine_field_path("layout-a"));
}

}  // namespace
}  // namespace treesim::machine
