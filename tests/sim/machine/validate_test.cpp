#include "sim/machine/validate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/machine/machine_file.h"
#include "tests/test_support.h"

namespace treesim::machine {
namespace {

using ::testing::Contains;
using ::testing::Field;
using ::testing::HasSubstr;

// mini without its energy model (which names levels) and with memory only in the PEs, so each test
// sees only the problems it makes.
MachineConfig mini_config() {
  MachineConfig c = load_machine_file(testing::source_path("configs/mini.yaml"));
  c.energy.reset();
  for (std::size_t i = 0; i + 1 < c.levels.size(); ++i) c.levels[i].memory_bytes = 0;
  return c;
}

std::vector<std::string> wheres(const std::vector<core::Error>& errors) {
  std::vector<std::string> out;
  for (const auto& e : errors) out.push_back(e.where);
  return out;
}

TEST(Validate, ShippedMachinesHaveNoProblem) {
  EXPECT_TRUE(validate(load_machine_file(testing::source_path("configs/mini.yaml"))).empty());
  EXPECT_TRUE(validate(load_machine_file(testing::source_path("configs/mncore-board.yaml"))).empty());
}

TEST(Validate, ReturnsEveryProblemWithItsFieldPath) {
  MachineConfig c = mini_config();
  c.levels[2].fanout = 0;
  c.pe.mac.int8_macs_per_cycle = 0;
  c.dram.bytes_per_cycle = 0;
  c.levels[1].name = "W";
  const auto errors = validate(c);
  EXPECT_THAT(wheres(errors), ::testing::ElementsAre("dram.bytes_per_cycle", "levels[1].name",
                                                     "levels[2].fanout", "pe.mac.int8_macs_per_cycle"));
  EXPECT_EQ(errors[0].what, "expected a positive integer, got 0");
}

TEST(Validate, ZeroRateIsAnErrorForEveryUnit) {
  MachineConfig c = mini_config();
  c.pe.copy.bytes_per_cycle = c.pe.requant.values_per_cycle = c.pe.dpt_decoder.bytes_per_cycle = 0;
  c.levels[0].up_bytes_per_cycle = 0;
  EXPECT_THAT(wheres(validate(c)), ::testing::UnorderedElementsAre(
                                       "levels[0].up_bytes_per_cycle", "pe.dpt_decoder.bytes_per_cycle",
                                       "pe.requant.values_per_cycle", "pe.copy.bytes_per_cycle"));
}

TEST(Validate, FanoutsThatWrap64BitsAreRefusedAndUnitsAtDoesNotWrap) {
  MachineConfig c = mini_config();
  for (auto& l : c.levels) l.fanout = std::uint64_t{1} << 16;  // 2^64 PEs: a plain product is 0
  EXPECT_THAT(validate(c), Contains(Field(&core::Error::where, "levels[1].fanout")));
  EXPECT_THROW(c.pe_count(), std::overflow_error);
}

TEST(Validate, PeCountLimit) {
  MachineConfig c = mini_config();
  c.levels[0].fanout = MachineLimits::kMaxPes;  // × 32 below it
  c.levels.back().memory_bytes = 1;
  const auto errors = validate(c);
  ASSERT_FALSE(errors.empty());
  EXPECT_THAT(errors.front().what, HasSubstr("at most 1048576"));
}

TEST(Validate, TotalMemoryLimitIsCheckedWithoutOverflow) {
  MachineConfig c = mini_config();
  c.levels.back().memory_bytes = std::uint64_t{16777215} << 40;  // 16 million TiB per PE
  const auto errors = validate(c);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].where, "levels[3].memory_bytes");
}

TEST(Validate, LevelCountLimitIsCheckedBeforeTheLevels) {
  MachineConfig c = mini_config();
  c.levels.resize(20000, c.levels.back());
  const auto errors = validate(c);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].message(), "levels: expected at most 64 levels, got 20000");
}

TEST(Validate, NamesMustBePrintableUtf8AndLevelNamesUnique) {
  MachineConfig c = mini_config();
  c.name = "bad\xff";
  c.levels[3].name = "L2B";
  EXPECT_THAT(wheres(validate(c)), ::testing::ElementsAre("name", "levels[3].name"));
  c.name = "ボード";  // valid UTF-8 is fine
  c.levels[3].name = "PE";
  EXPECT_TRUE(validate(c).empty());
}

TEST(Validate, ClockMustBeFinitePositive) {
  MachineConfig c = mini_config();
  c.clock_ghz = std::numeric_limits<double>::infinity();
  EXPECT_THAT(wheres(validate(c)), ::testing::ElementsAre("clock_ghz"));
}

TEST(MachineYaml, CrlfLineEndsAreAccepted) {
  std::string text = testing::read_text(testing::source_path("configs/mini.yaml"));
  std::string crlf;
  for (char ch : text) crlf += ch == '\n' ? std::string("\r\n") : std::string(1, ch);
  EXPECT_EQ(parse_machine_yaml(crlf, "crlf.yaml").pe_count(), 32u);
}

TEST(MachineYaml, ValidateProblemsPointIntoTheFile) {
  std::string text = testing::read_text(testing::source_path("configs/mini.yaml"));
  text.replace(text.find("fanout: 1,"), 10, "fanout: 1099511627776,");
  try {
    parse_machine_yaml(text, "big.yaml");
    FAIL() << "accepted";
  } catch (const MachineFileError& e) {
    EXPECT_EQ(e.line(), 7);
    EXPECT_THAT(e.what(), HasSubstr("big.yaml:7:26: field 'levels[0].fanout': "));
  }
}

}  // namespace
}  // namespace treesim::machine
