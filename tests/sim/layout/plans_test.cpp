// Loader traffic, slot enumeration, conversion, per-unit views and enumeration on hand-computed
// cases. The arithmetic is written out next to each expected value.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "sim/layout/convert.h"
#include "sim/layout/enumerate.h"
#include "sim/layout/loader_plan.h"
#include "sim/layout/parse.h"
#include "sim/layout/slots.h"
#include "sim/layout/unit_view.h"
#include "sim/machine/machine_file.h"
#include "tests/configs.h"
#include "tests/sim/layout/machines.h"
#include "tests/test_support.h"

namespace treesim::layout {
namespace {

using V = std::vector<std::uint64_t>;

BoundLayout bound_layout(const std::string& text, const V& shape, const machine::MachineConfig& m,
                         std::size_t bytes = 1) {
  return bind_or_throw(parse_layout_or_throw(text, m), shape, m, bytes);
}

TEST(LoaderPlan, SeedLayoutOnTheBoard) {
  auto m = treesim::testing::config("mncore-board");
  auto b = bound_layout("((16_L2B, 8_L1B, 8:8), (16_MAB, 8:1, 4_PE))", {1024, 512}, m);
  TrafficPlan load = plan_load(b), gather = plan_gather(b);
  // 1024 × 512 int8 = 524288 bytes, each read once; no replication, so every level sends and
  // delivers all of it once.
  EXPECT_EQ(load.dram_read_bytes, 524288u);
  // Per unit: L2B holds 1024/16 rows × 512 = 32768 B; L1B 32768/8 = 4096; MAB 4096/16 = 256; PE 256/4 = 64.
  const std::uint64_t busiest_down[] = {524288, 32768, 4096, 256};  // what one parent holds
  for (std::size_t lv = 0; lv < 4; ++lv) {
    EXPECT_EQ(load.levels[lv].down_sent_bytes, 524288u);
    EXPECT_EQ(load.levels[lv].down_delivered_bytes, 524288u);
    EXPECT_EQ(load.levels[lv].busiest_down_port_bytes, busiest_down[lv]);
    EXPECT_EQ(gather.levels[lv].up_sent_bytes, 524288u);
    EXPECT_EQ(gather.levels[lv].up_delivered_bytes, 524288u);
    EXPECT_EQ(gather.levels[lv].busiest_up_port_bytes, busiest_down[lv]);
  }
  // One scatter per child: 16 L2Bs + 16×8 L1Bs + 128×16 MABs + 2048×4 PEs = 16+128+2048+8192.
  EXPECT_EQ(load.transfers, 10384u);
  EXPECT_EQ(gather.transfers, 10384u);
  EXPECT_EQ(gather.dram_write_bytes, 524288u);
}

TEST(LoaderPlan, BroadcastOnAOneMabMachine) {
  std::string yaml =
      "name: one-mab\nclock_ghz: 1.0\n"
      "dram: { bytes: 1GiB, bytes_per_cycle: 64, latency_cycles: 100 }\n"
      "levels:\n"
      "  - { name: L2B, fanout: 1, memory_bytes: 4MiB, down_bytes_per_cycle: 64, up_bytes_per_cycle: 64, "
      "latency_cycles: 8, reduce: true }\n"
      "  - { name: L1B, fanout: 1, memory_bytes: 1MiB, down_bytes_per_cycle: 32, up_bytes_per_cycle: 32, "
      "latency_cycles: 4, reduce: true }\n"
      "  - { name: MAB, fanout: 1, memory_bytes: 0, down_bytes_per_cycle: 16, up_bytes_per_cycle: 16, "
      "latency_cycles: 2, reduce: false }\n"
      "  - { name: PE, fanout: 4, memory_bytes: 64KiB, down_bytes_per_cycle: 8, up_bytes_per_cycle: 8, "
      "latency_cycles: 1, reduce: false }\n"
      "pe:\n"
      "  mac: { int8_macs_per_cycle: 64, latency_cycles: 4 }\n"
      "  dpt_decoder: { bytes_per_cycle: 4, latency_cycles: 2 }\n"
      "  requant: { values_per_cycle: 8, latency_cycles: 3 }\n";
  auto m = machine::load_machine_file(treesim::testing::write_temp_file("one-mab.yaml", yaml));
  for (std::size_t bytes : {1u, 4u}) {
    auto b = bound_layout("((12:8), (8:1); B@[PE])", {12, 8}, m, bytes);
    TrafficPlan load = plan_load(b), gather = plan_gather(b);
    const std::uint64_t t = 12 * 8 * bytes;  // 96 elements
    EXPECT_EQ(load.dram_read_bytes, t);
    for (std::size_t lv = 0; lv < 3; ++lv) {  // one unit per level: the whole tensor passes once
      EXPECT_EQ(load.levels[lv].down_sent_bytes, t);
      EXPECT_EQ(load.levels[lv].down_delivered_bytes, t);
      EXPECT_EQ(load.levels[lv].busiest_down_port_bytes, t);
    }
    // The MAB broadcasts: its port carries the 96 elements once, each of the 4 PEs receives them.
    EXPECT_EQ(load.levels[3].down_sent_bytes, t);
    EXPECT_EQ(load.levels[3].down_delivered_bytes, 4 * t);
    EXPECT_EQ(load.levels[3].busiest_down_port_bytes, t);
    EXPECT_EQ(load.transfers, 4u);  // one send per level, the last a broadcast
    // Gather: replica 0 (PE 0) sends the 96 elements up through every level.
    for (std::size_t lv = 0; lv < 4; ++lv) {
      EXPECT_EQ(gather.levels[lv].up_sent_bytes, t);
      EXPECT_EQ(gather.levels[lv].busiest_up_port_bytes, t);
    }
    EXPECT_EQ(gather.transfers, 4u);
    EXPECT_EQ(gather.dram_write_bytes, t);
  }
}

TEST(LoaderPlan, PaddingTravelsDownButNotUp) {
  auto m = testing::toy();
  auto b = bound_layout("(10,7)/((3:7, 4_PE), (7:1))", {10, 7}, m);
  TrafficPlan load = plan_load(b), gather = plan_gather(b);
  // 10×7 = 70 elements read; 12×7 = 84 padded slots go down, 21 per PE.
  EXPECT_EQ(load.dram_read_bytes, 70u);
  EXPECT_EQ(load.levels[3].down_sent_bytes, 84u);
  EXPECT_EQ(load.levels[3].down_delivered_bytes, 84u);
  EXPECT_EQ(gather.levels[3].up_sent_bytes, 70u);  // PEs 2 and 3 send 14 each, PEs 0 and 1 send 21
  EXPECT_EQ(gather.levels[3].busiest_up_port_bytes, 70u);
}

TEST(LoaderPlan, TimeLayoutsAreNotResident) {
  auto b = bound_layout("((3_Time, 4_PE), (8:1))", {12, 8}, testing::toy());
  EXPECT_THROW(plan_load(b), LayoutError);
  EXPECT_THROW(for_each_slot(b, [](std::uint64_t, std::uint64_t, std::int64_t) {}), LayoutError);
}

TEST(LoaderPlan, A64MiBTensorPlansFast) {
  auto m = testing::board();
  auto start = std::chrono::steady_clock::now();
  // 8192 × 8192 int8 = 64 MiB: 8 KiB per PE.
  auto b = bound_layout("((16_L2B, 8_L1B, 64:128), (16_MAB, 4_PE, 128:1))", {8192, 8192}, m);
  TrafficPlan load = plan_load(b), gather = plan_gather(b);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(load.dram_read_bytes, 64u << 20);
  EXPECT_EQ(load.levels[3].busiest_down_port_bytes, 4u * 8192);  // a MAB: 4 PEs × 8 KiB
  EXPECT_EQ(gather.levels[3].up_sent_bytes, 64u << 20);
  EXPECT_LT(seconds, 1.0);
}

TEST(ForEachSlot, SeedLayoutFillsEveryPeOnce) {
  auto b = bound_layout("((16_L2B, 8_L1B, 8:8), (16_MAB, 8:1, 4_PE))", {1024, 512}, testing::board());
  std::vector<std::uint8_t> hits(8192 * 64, 0);
  std::uint64_t slots = 0;
  std::int64_t at_5604_35 = -2;
  for_each_slot(b, [&](std::uint64_t pe, std::uint64_t off, std::int64_t e) {
    ++hits[pe * 64 + off];
    ++slots;
    if (pe == 5604 && off == 35) at_5604_35 = e;
  });
  EXPECT_EQ(slots, 524288u);
  EXPECT_TRUE(std::all_of(hits.begin(), hits.end(), [](std::uint8_t h) { return h == 1; }));
  EXPECT_EQ(at_5604_35, 700 * 512 + 300);  // T15: (700,300) at PE 5604, address 35
}

TEST(ForEachSlot, ByteOffsetsCountLanesAndElementSize) {
  // T19 on mn2 with int32: (77) at PE 2 address 6 lane 1 → byte (6×2 + 1)×4 = 52, on 1024 replicas.
  auto b = bound_layout("((4_PE:1, 16:1, 2_W:1))", {128}, testing::mn2(), 4);
  std::uint64_t copies = 0;
  for_each_slot(b, [&](std::uint64_t pe, std::uint64_t off, std::int64_t e) {
    if (e == 77) {
      EXPECT_EQ(pe % 4, 2u);
      EXPECT_EQ(off, 52u);
      ++copies;
    }
  });
  EXPECT_EQ(copies, 8u * 8 * 16);
}

TEST(Conversion, BlockedRowsToCyclicRows) {
  auto m = testing::toy();
  auto a = bound_layout("((4_PE, 3:8), (8:1))", {12, 8}, m),
       c = bound_layout("((3:8, 4_PE), (8:1))", {12, 8}, m);
  ConversionPlan p = plan_conversion(a, c);
  // Row i: A puts it on PE i/3 at slot i%3, B on PE i%4 at slot i/4.
  // In place (same PE, same slot): rows 0 and 11 → 16 elements. Same PE, other slot: rows 5, 6 → 16.
  // Between PEs of the one MAB: rows 1,2,3,4,7,8,9,10 → 64.
  EXPECT_EQ(p.destination_slots, 96u);
  EXPECT_EQ(p.in_place, 16u);
  EXPECT_EQ(p.copies_by_lca, (V{0, 0, 0, 64, 16}));
  // The 64 moved elements go up one PE link each and down one; the MAB's ports carry them once.
  EXPECT_EQ(p.levels[3].up_sent_bytes, 64u);
  EXPECT_EQ(p.levels[3].down_sent_bytes, 64u);
  EXPECT_EQ(p.levels[3].down_delivered_bytes, 64u);
  EXPECT_EQ(p.levels[3].busiest_down_port_bytes, 64u);
  for (std::size_t lv = 0; lv < 3; ++lv)
    EXPECT_EQ(p.levels[lv].up_sent_bytes + p.levels[lv].down_sent_bytes, 0u);
  EXPECT_FALSE(p.moves_nothing());
}

TEST(Conversion, UnicastToBroadcastIsAMulticast) {
  auto m = testing::toy();
  auto a = bound_layout("((4_PE, 3:8), (8:1))", {12, 8}, m), c = bound_layout("((12:8), (8:1))", {12, 8}, m);
  ConversionPlan p = plan_conversion(a, c);
  // Every element is wanted on all 4 PEs at address (i×8 + j): 384 slots. Row i sits on PE i/3 at
  // address (i%3)×8 + j, which equals i×8 + j only for rows 0, 1, 2 → 24 in place. Its own PE keeps a
  // local copy for the other 9 rows (72), the 3 other PEs get it through the MAB (96 × 3 = 288).
  EXPECT_EQ(p.destination_slots, 384u);
  EXPECT_EQ(p.in_place, 24u);
  EXPECT_EQ(p.copies_by_lca, (V{0, 0, 0, 288, 72}));
  // Each element goes up once (96 B) and the MAB's port sends it once (96 B) to 3 PEs (288 B).
  EXPECT_EQ(p.levels[3].up_sent_bytes, 96u);
  EXPECT_EQ(p.levels[3].down_sent_bytes, 96u);
  EXPECT_EQ(p.levels[3].down_delivered_bytes, 288u);
}

// A whole operand bound without the LM check has an LM of 2^62 addresses; a slot numbered by that
// capacity wrapped past 64 bits and counted copies in other PEs as in place (the board MLP's
// conversions came to 2^47 cycles). The count is the checked binding's.
TEST(Conversion, LayoutsBoundWithoutTheLmCheckCountAsCheckedOnes) {
  const machine::MachineConfig m = treesim::testing::config("mncore-board");
  const std::string from = "((2_L2B:8, 8_L1B, 1_PE, 1:2), (8_L2B:1, 16_MAB, 2:1))";
  const std::string to = "((8_L1B, 2_MAB:8, 1:64), (4_PE, 64:1); B@[8_MAB:1])";
  auto bind = [&](const std::string& text, LmCapacity capacity) {
    return bind_or_throw(parse_layout_or_throw(text, m), {16, 256}, m, 1, capacity);
  };
  for (bool alike : {true, false}) {
    const ConversionPlan checked =
        plan_conversion(bind(from, LmCapacity::kChecked), bind(to, LmCapacity::kChecked), alike);
    const ConversionPlan unchecked =
        plan_conversion(bind(from, LmCapacity::kUnchecked), bind(to, LmCapacity::kUnchecked), alike);
    EXPECT_EQ(unchecked.in_place, checked.in_place) << alike;
    EXPECT_EQ(unchecked.copies_by_lca, checked.copies_by_lca) << alike;
    EXPECT_EQ(checked.in_place, 2u);
  }
}

TEST(UnitView, PaddedRowsOfT11) {
  auto b = bound_layout("(10,7)/((3:7, 4_PE), (7:1))", {10, 7}, testing::toy());
  UnitView v = unit_view(b, {0, 0, 0, 2});
  ASSERT_TRUE(v.used);
  EXPECT_EQ(runs_string(v.axes[0]), "2..10 step 4");
  EXPECT_EQ(runs_string(v.axes[1]), "0..6");
  EXPECT_EQ(v.slots, 21u);
  EXPECT_EQ(v.elements, 14u);  // rows 2 and 6; row 10 is padding
  EXPECT_EQ(v.addresses, 21u);
  EXPECT_EQ(summary(b, "i8"), "i8[10→12: 3×4_PE, 7] 21 words/PE (21 B), 4 of 4 PEs, replicated ×1");
}

TEST(UnitView, UnusedUnitsAndSummary) {
  auto b = bound_layout("((4_PE, 3:8), (8:1))", {12, 8}, testing::board());
  EXPECT_TRUE(unit_view(b, {0, 0, 0, 0}).used);
  EXPECT_EQ(summary(b, "i8"), "i8[12: 4_PE×3, 8] 24 words/PE (24 B), 8192 of 8192 PEs, replicated ×2048");
  auto pinned = bound_layout("((1_MAB, 4_PE, 3:8), (8:1))", {12, 8}, testing::board());
  EXPECT_TRUE(unit_view(pinned, {3, 1, 0, 2}).used);
  EXPECT_FALSE(unit_view(pinned, {3, 1, 1, 2}).used);
  EXPECT_EQ(unit_view(pinned, {3, 1, 0, 2}).replica, 3u * 8 + 1);  // omitted L2B, L1B
}

TEST(UnitView, TensorGridOfT1) {
  auto b = bound_layout("((4_PE, 3:8), (8:1))", {12, 8}, testing::toy());
  std::string grid = tensor_grid(b);
  // Row 5 = PE 1, addresses 16..23.
  EXPECT_NE(grid.find("\n 5 1:16 1:17 1:18 1:19 1:20 1:21 1:22 1:23\n"), std::string::npos) << grid;
  auto padded = bound_layout("(10,7)/((3:7, 4_PE), (7:1))", {10, 7}, testing::toy());
  EXPECT_NE(tensor_grid(padded).find("2:14*"), std::string::npos);
}

TEST(Enumerate, SeedLayoutsAreAmongTheCandidates) {
  auto m = testing::toy();
  auto all = enumerate_layouts({12, 8}, m, 1);
  std::vector<std::string> texts;
  for (const auto& l : all) texts.push_back(to_string(l));
  for (const char* seed :
       {"((4_PE, 3:8), (8:1))", "((3:8, 4_PE), (8:1))", "((12:2), (4_PE, 2:1))", "((12:8), (8:1))"})
    EXPECT_NE(std::find(texts.begin(), texts.end(), seed), texts.end()) << seed;
  EXPECT_EQ(texts.front(), "((4_PE, 3:8), (8:1))");  // the whole machine first
  std::sort(texts.begin(), texts.end());
  EXPECT_EQ(std::unique(texts.begin(), texts.end()), texts.end());
  for (const auto& l : all) EXPECT_TRUE(bind_layout(l, {12, 8}, m, 1)) << to_string(l);

  EnumerateOptions no_broadcast;
  no_broadcast.allow_broadcast = false;
  for (const auto& l : enumerate_layouts({12, 8}, m, 1, no_broadcast))
    EXPECT_NE(to_string(l), "((12:8), (8:1))");
  EnumerateOptions few;
  few.limit = 3;
  EXPECT_EQ(enumerate_layouts({1024, 512}, testing::board(), 1, few).size(), 3u);
  // Nothing fits a 16-byte LM when the tensor needs 24 bytes per PE at best.
  EXPECT_TRUE(enumerate_layouts({12, 8}, testing::toy(16), 1).empty());
}

}  // namespace
}  // namespace treesim::layout
