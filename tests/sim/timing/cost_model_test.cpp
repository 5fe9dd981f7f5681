// The closed forms of the one cost model, exact on configs/mini.yaml:
//   DRAM 64 B/c + 100; L2B 64 B/c + 8; L1B 32 B/c + 4; MAB 16 B/c + 2; PE 8 B/c + 1;
//   MAC 64/c + 4; DPT 4 B/c + 2; requant 8/c + 3; copy 16 B/c + 1 (default).
#include "sim/timing/cost_model.h"

#include <gtest/gtest.h>

#include "sim/layout/bound_layout.h"
#include "sim/layout/convert.h"
#include "sim/layout/parse.h"
#include "sim/machine/machine_file.h"
#include "tests/configs.h"
#include "tests/test_support.h"

namespace treesim::timing {
namespace {

using testing::mini;

TEST(CostModel, UnitIsLatencyPlusCeilingOfWorkOverRate) {
  const auto m = mini();
  CostModel c(m);
  EXPECT_EQ(c.unit(Unit::kMac, 65).busy, 2u);
  EXPECT_EQ(c.unit(Unit::kMac, 65).duration(), 6u);
  EXPECT_EQ(c.unit(Unit::kDptDecoder, 9).duration(), 2u + 3u);
  EXPECT_EQ(c.unit(Unit::kRequant, 16).duration(), 3u + 2u);
  EXPECT_EQ(c.unit(Unit::kCopy, 17).duration(), 1u + 2u);
  EXPECT_EQ(c.unit(Unit::kMac, 0).busy, 0u);
}

TEST(CostModel, PortsAndDramUseTheirOwnRates) {
  const auto m = mini();
  CostModel c(m);
  EXPECT_EQ(c.dram(129).busy, 3u);
  EXPECT_EQ(c.dram(129).latency, 100u);
  EXPECT_EQ(c.port(3, Direction::kDown, 96).busy, 12u);
  EXPECT_EQ(c.port(1, Direction::kUp, 33).busy, 2u);
  EXPECT_EQ(c.port(0, Direction::kDown, 1).latency, 8u);
}

TEST(CostModel, LoadIsPathLatencyPlusTheSlowestStage) {
  // 12×8 int8 in row blocks of 3 on the 4 PEs of every MAB: every port carries 96 B; PE's is slowest.
  const auto m = mini();
  const layout::TensorLayout l = layout::parse_layout_or_throw("((4_PE, 3:8), (8:1))", m);
  TransferTime t = CostModel(m).load(layout::plan_load(l, {12, 8}, 1, m));
  EXPECT_EQ(t.latency, 115u);
  EXPECT_EQ(t.duration(), 115u + 12u);
  ASSERT_EQ(t.stages.size(), 5u);
  EXPECT_EQ(t.stages[0].resource, Resource::dram());
  EXPECT_EQ(t.stages[4].resource, Resource::port(3, Direction::kDown));
}

TEST(CostModel, EmptyStagesTakeNoTimeButTheLatency) {
  const auto m = mini();
  layout::TrafficPlan empty;
  empty.levels.resize(4);
  TransferTime t = CostModel(m).load(empty);
  EXPECT_EQ(t.duration(), 115u);
  for (const Stage& s : t.stages) EXPECT_EQ(s.cycles, 0u);
}

TEST(CostModel, TransferIsLatencyPlusLargestStage) {
  // DRAM 100 B at 64 B/c = 2; PE ports 100 B at 8 B/c = 13 (the largest); MAB ports 40 B at 16 = 3.
  const auto m = mini();
  layout::TrafficPlan plan;
  plan.dram_read_bytes = 100;
  plan.levels.resize(4);
  plan.levels[3].busiest_down_port_bytes = 100;
  plan.levels[2].busiest_down_port_bytes = 40;
  TransferTime t = CostModel(m).load(plan);
  EXPECT_EQ(t.duration(), 115u + 13u);
  EXPECT_EQ(t.stages[0].cycles, 2u);
  EXPECT_EQ(t.stages[3].cycles, 3u);
  EXPECT_EQ(t.stages[4].cycles, 13u);
}

TEST(CostModel, BroadcastFromTheBoardCrossesEveryLevelTwice) {
  const auto m = mini();
  TransferTime t = CostModel(m).collective(Collective::kBroadcast, -1, 128);
  EXPECT_EQ(t.latency, 2u * (8 + 4 + 2 + 1));
  EXPECT_EQ(t.duration(), 30u + 128u / 8);  // the PE ports, 8 B/c, are the slowest
}

TEST(CostModel, RooflineNamesTheBindingResource) {
  const auto m = mini();
  Work w;
  w.macs = 32 * 64 * 10;  // 10 cycles on 32 PEs
  w[Datapath::kInt8Mac] = w.macs;
  w.dram_read_bytes = 64 * 12;  // 12 cycles
  w.levels.resize(4);
  w.levels[3].busiest_down_port_bytes = 8 * 11;
  Roofline r = CostModel(m).roofline(w);
  EXPECT_EQ(r.cycles, 12u);
  EXPECT_EQ(r.resource, "dram");
  EXPECT_EQ(r.bounds.at("mac"), 10u);
  EXPECT_EQ(r.bounds.at("PE.down"), 11u);
}

layout::BoundLayout bound(const std::string& text, const machine::MachineConfig& m) {
  return layout::bind_or_throw(layout::parse_layout_or_throw(text, m), {12, 8}, m, 1);
}

TEST(CostModel, ConversionIntoTheSameLayoutTakesNothing) {
  const auto m = mini();
  const auto a = bound("((1_L1B, 1_MAB, 4_PE, 3:8), (8:1))", m);
  EXPECT_EQ(CostModel(m).conversion(layout::plan_conversion(a, a), 1).duration(), 0u);
}

TEST(CostModel, ConversionGoesUpThenDownItsBusiestPorts) {
  // Blocked rows to cyclic rows on one MAB (docs/cli.md, layout convert): 64 bytes up and 64 down
  // at the PE ports (8 B/c, latency 1 each way): 1 + 1 + 64 / 8. The 16 copies inside a PE take
  // the copy unit 1 + 1 cycles, beside the links.
  const auto m = mini();
  const TransferTime t =
      CostModel(m).conversion(layout::plan_conversion(bound("((1_L1B, 1_MAB, 4_PE, 3:8), (8:1))", m),
                                                      bound("((1_L1B, 1_MAB, 3:8, 4_PE), (8:1))", m)),
                              1);
  EXPECT_EQ(t.latency, 2u);
  EXPECT_EQ(t.duration(), 10u);
  ASSERT_EQ(t.stages.size(), 2u);
  EXPECT_EQ(t.stages[0].resource, Resource::port(3, Direction::kUp));
  EXPECT_EQ(t.stages[1].resource, Resource::port(3, Direction::kDown));
}

}  // namespace
}  // namespace treesim::timing
