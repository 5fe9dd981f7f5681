// make_report's derived figures on a hand-made run on mini, checked against hand arithmetic, and what
// the two renderers make of them.
#include <gtest/gtest.h>

#include "sim/machine/machine_file.h"
#include "sim/report/report.h"
#include "tests/configs.h"
#include "tests/test_support.h"

namespace treesim::report {
namespace {

using testing::mini;

// mini: 32 PEs of 64 MACs and 8 requant values per cycle; DRAM 64 B/c; link rates L2B 64, L1B 32,
// MAB 16, PE 8 B/c; energy mac 0.2, LM 0.5, DRAM 20, links L2B 8, L1B 4, MAB 2, PE 1 pJ/B.
RunStats toy_run() {
  RunStats s;
  s.kernel = "toy";
  s.cycles = 1000;
  s.work.dram_read_bytes = 640;
  s.work.dram_write_bytes = 64;
  s.work.levels.resize(4);
  const std::uint64_t down_delivered[4] = {640, 1280, 2560, 2560};
  const std::uint64_t down_busiest[4] = {640, 640, 640, 2000};
  for (int l = 0; l < 4; ++l) {
    s.work.levels[l].down_sent_bytes = 640;
    s.work.levels[l].down_delivered_bytes = down_delivered[l];
    s.work.levels[l].up_sent_bytes = 64;
    s.work.levels[l].up_delivered_bytes = 64;
    s.work.levels[l].busiest_down_port_bytes = down_busiest[l];
    s.work.levels[l].busiest_up_port_bytes = 64;
  }
  s.resource_busy_cycles = {{"mac", 250}, {"dram", 11}, {"requant", 0}};
  s.instructions = {{"mac", {1, 100, 104}}, {"load", {2, 300, 250}}, {"store", {0, 0, 0}}};
  s.work.macs = 32 * 64 * 100;
  s.work[timing::Datapath::kInt8Mac] = s.work.macs;
  s.work[timing::Datapath::kRequant] = 32 * 8 * 5;
  s.work.lm_bytes = 1000;
  s.lm_peak_bytes_per_pe = 512;
  return s;
}

TEST(MakeReport, SecondsAreCyclesOverTheClock) {
  Report r = make_report(mini(), toy_run());
  EXPECT_EQ(r.cycles, 1000u);
  EXPECT_DOUBLE_EQ(r.seconds, 1e-6);
  EXPECT_EQ(r.machine, "mini");
  EXPECT_EQ(r.kernel, "toy");
}

TEST(MakeReport, RooflineIsTheLargestBoundAndNamesItsResource) {
  Roofline r = make_report(mini(), toy_run()).roofline;
  EXPECT_EQ(r.cycles, 250u);  // PE.down: 2000 B / 8 B per cycle
  EXPECT_EQ(r.resource, "PE.down");
  EXPECT_DOUBLE_EQ(r.fraction_of_run, 0.25);
}

TEST(MakeReport, RooflineListsEveryResourceBound) {
  const std::map<std::string, std::uint64_t> expected = {
      {"mac", 100},                        // 204800 MACs / (32 × 64)
      {"dpt_decoder", 0}, {"requant", 5},  // 1280 / (32 × 8)
      {"copy", 0},        {"dram", 11},    // ceil(704 / 64)
      {"L2B.down", 10},   {"L2B.up", 1},   // 640 / 64, 64 / 64
      {"L1B.down", 20},   {"L1B.up", 2},   // 640 / 32, 64 / 32
      {"MAB.down", 40},   {"MAB.up", 4},   // 640 / 16, 64 / 16
      {"PE.down", 250},   {"PE.up", 8},    // 2000 / 8, 64 / 8
      {"vector", 0}};                      // mini has a vector unit (pe.vector)
  EXPECT_EQ(make_report(mini(), toy_run()).roofline.bounds, expected);
}

TEST(MakeReport, UtilizationIsBusyCyclesOverCycles) {
  Report r = make_report(mini(), toy_run());
  ASSERT_EQ(r.units.size(), 3u);
  EXPECT_EQ(r.units[0].name, "dram");  // name order
  EXPECT_DOUBLE_EQ(r.units[0].utilization, 0.011);
  EXPECT_EQ(r.units[1].name, "mac");
  EXPECT_EQ(r.units[1].busy_cycles, 250u);
  EXPECT_DOUBLE_EQ(r.units[1].utilization, 0.25);
}

TEST(MakeReport, EnergyIsWorkTimesThePerUnitCosts) {
  Report r = make_report(mini(), toy_run());
  ASSERT_TRUE(r.energy_pj.has_value());
  EXPECT_DOUBLE_EQ(r.energy_pj->mac, 40960);   // 0.2 × 204800
  EXPECT_DOUBLE_EQ(r.energy_pj->lm, 500);      // 0.5 × 1000
  EXPECT_DOUBLE_EQ(r.energy_pj->dram, 14080);  // 20 × 704
  // Delivered bytes, down + up: 8 × 704 + 4 × 1344 + 2 × 2624 + 1 × 2624.
  EXPECT_DOUBLE_EQ(r.energy_pj->links, 18880);
  EXPECT_DOUBLE_EQ(r.energy_pj->total, 74420);
}

TEST(MakeReport, NoEnergySectionMeansNoEnergy) {
  machine::MachineConfig m = mini();
  m.energy.reset();
  EXPECT_FALSE(make_report(m, toy_run()).energy_pj.has_value());
  EXPECT_EQ(to_json(make_report(m, toy_run())).find("energy_pj"), std::string::npos);
}

TEST(MakeReport, LevelsAndPhasesCarryTheMachinesLevelNames) {
  RunStats s = toy_run();
  s.phases["gather"].cycles = 7;
  s.phases["gather"].work.levels.resize(4);
  s.phases["gather"].work.levels[3].up_sent_bytes = 96;
  Report r = make_report(mini(), s);
  ASSERT_EQ(r.levels.size(), 4u);
  EXPECT_EQ(r.levels[0].name, "L2B");
  EXPECT_EQ(r.levels[3].name, "PE");
  EXPECT_EQ(r.levels[3].traffic.busiest_down_port_bytes, 2000u);
  ASSERT_EQ(r.phases.size(), 1u);
  EXPECT_EQ(r.phases[0].name, "gather");
  EXPECT_EQ(r.phases[0].cycles, 7u);
  EXPECT_EQ(r.phases[0].levels[3].name, "PE");
  EXPECT_EQ(r.phases[0].levels[3].traffic.up_sent_bytes, 96u);
}

TEST(MakeReport, InstructionKindsKeepTheirCountsBusyAndSpanCycles) {
  Report r = make_report(mini(), toy_run());
  ASSERT_EQ(r.instructions.size(), 3u);
  EXPECT_EQ(r.instructions[0].kind, "load");
  EXPECT_EQ(r.instructions[0].count, 2u);
  EXPECT_EQ(r.instructions[0].busy_cycles, 300u);
  EXPECT_EQ(r.instructions[0].span_cycles, 250u);
}

TEST(MakeReport, AnEmptyRunHasZeroFractionsNotNaN) {
  RunStats s;
  s.resource_busy_cycles["mac"] = 0;
  Report r = make_report(mini(), s);
  EXPECT_EQ(r.roofline.fraction_of_run, 0.0);
  EXPECT_EQ(r.units[0].utilization, 0.0);
}

TEST(ToJson, KernelFieldsNeverReplaceCommonKeys) {
  RunStats s = toy_run();
  s.extra["cycles"] = 5;
  s.extra["gather_cycles"] = 9;
  std::string json = to_json(make_report(mini(), s));
  EXPECT_NE(json.find("\"cycles\": 1000"), std::string::npos);
  EXPECT_EQ(json.find("\"cycles\": 5"), std::string::npos);
  EXPECT_NE(json.find("\"gather_cycles\": 9"), std::string::npos);
}

TEST(ToText, ShowsOnlyThePeUnitsThatWorked) {
  std::string text = to_text(make_report(mini(), toy_run()));
  EXPECT_NE(text.find("  mac busy 25.0%\n"), std::string::npos);
  EXPECT_EQ(text.find("requant busy"), std::string::npos);  // busy 0 cycles
  EXPECT_EQ(text.find("dram busy"), std::string::npos);     // not a PE unit
}

TEST(ToText, ListsTheKindsThatRanWithTheirBusyAndSpanCycles) {
  std::string text = to_text(make_report(mini(), toy_run()));
  EXPECT_NE(text.find("  load: 2 instructions, busy 300 cycles, span 250 cycles\n"), std::string::npos);
  EXPECT_NE(text.find("  mac: 1 instruction, busy 100 cycles, span 104 cycles\n"), std::string::npos);
  EXPECT_EQ(text.find("store"), std::string::npos);  // count 0
}

TEST(ToJson, InstructionKindsHaveCountBusyAndSpanCycles) {
  const std::string json = to_json(make_report(mini(), toy_run()));
  EXPECT_NE(
      json.find(
          "\"load\": {\n      \"count\": 2,\n      \"busy_cycles\": 300,\n      \"span_cycles\": 250\n"),
      std::string::npos)
      << json;
}

TEST(ToText, FirstLinesGiveCyclesSecondsAndTheRoofline) {
  std::string text = to_text(make_report(mini(), toy_run()));
  EXPECT_EQ(text.substr(0, text.find("  DRAM")),
            "toy on mini: 1000 cycles (1e-06 s at 1 GHz)\n"
            "  roofline bound 250 cycles, set by PE.down (25.0% of the run)\n");
}

}  // namespace
}  // namespace treesim::report
