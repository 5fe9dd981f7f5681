// The note's test cases T1–T20 (the design notes, tensor-layout §7), values copied from the note.
#include <gtest/gtest.h>

#include "sim/layout/bound_layout.h"
#include "sim/layout/parse.h"
#include "tests/sim/layout/machines.h"

namespace treesim::layout {
namespace {

using testing::board;
using testing::mn2;
using testing::toy;
using V = std::vector<std::uint64_t>;

BoundLayout bound(const std::string& text, const V& shape, const machine::MachineConfig& m) {
  return bind_or_throw(parse_layout_or_throw(text, m), shape, m);
}

// Expect replica 0 of `index` at (units, addr[, lane, time]).
void expect_at(const BoundLayout& b, const V& index, const V& units, std::uint64_t addr,
               std::uint64_t lane = 0, std::uint64_t time = 0) {
  Location l = b.locate(index);
  EXPECT_EQ(l.units, units) << shape_string(index);
  EXPECT_EQ(l.addr, addr) << shape_string(index);
  EXPECT_EQ(l.lane, lane) << shape_string(index);
  EXPECT_EQ(l.time, time) << shape_string(index);
}

void expect_element(const BoundLayout& b, const V& units, std::uint64_t addr, const V& index,
                    std::uint64_t replica = 0) {
  SlotContent s = b.inverse(units, addr);
  EXPECT_EQ(s.kind, SlotKind::Element);
  EXPECT_EQ(s.index, index);
  EXPECT_EQ(s.replica, replica);
}

const char* kT1 = "((4_PE, 3:8), (8:1))";

TEST(NoteCases, T1) { expect_at(bound(kT1, {12, 8}, toy()), {5, 3}, {0, 0, 0, 1}, 19); }
TEST(NoteCases, T2) { expect_at(bound(kT1, {12, 8}, toy()), {11, 7}, {0, 0, 0, 3}, 23); }
TEST(NoteCases, T3) { expect_element(bound(kT1, {12, 8}, toy()), {0, 0, 0, 2}, 13, {7, 5}); }

TEST(NoteCases, T4) { expect_at(bound("((12:2), (4_PE, 2:1))", {12, 8}, toy()), {5, 3}, {0, 0, 0, 1}, 11); }
TEST(NoteCases, T5) {
  auto b = bound("((12:2), (4_PE, 2:1))", {12, 8}, toy());
  expect_at(b, {7, 6}, {0, 0, 0, 3}, 14);
  EXPECT_EQ(b.inverse({0, 0, 0, 0}, 24).kind, SlotKind::Empty);
  EXPECT_EQ(b.cosize(b.addr_target()), 24u);  // each PE uses 0–23
}

TEST(NoteCases, T6) { expect_at(bound("((3:8, 4_PE), (8:1))", {12, 8}, toy()), {5, 3}, {0, 0, 0, 1}, 11); }
TEST(NoteCases, T7) {
  auto b = bound("((3:8, 4_PE), (8:1))", {12, 8}, toy());
  expect_at(b, {10, 2}, {0, 0, 0, 2}, 18);
  expect_element(b, {0, 0, 0, 3}, 21, {11, 5});
}

TEST(NoteCases, T8) {
  expect_at(bound("((2_PE:2, 6:4), (2_PE:1, 4:1))", {12, 8}, toy()), {5, 3}, {0, 0, 0, 0}, 23);
}
TEST(NoteCases, T9) {
  auto b = bound("((2_PE:2, 6:4), (2_PE:1, 4:1))", {12, 8}, toy());
  expect_at(b, {6, 4}, {0, 0, 0, 3}, 0);
  expect_at(b, {7, 2}, {0, 0, 0, 2}, 6);
  expect_at(b, {2, 5}, {0, 0, 0, 1}, 9);
  expect_element(b, {0, 0, 0, 2}, 23, {11, 3});
}

TEST(NoteCases, T10) {
  auto b = bound("(10,7)/((3:7, 4_PE), (7:1))", {10, 7}, toy());
  expect_at(b, {9, 6}, {0, 0, 0, 1}, 20);
  expect_at(b, {5, 3}, {0, 0, 0, 1}, 10);
}
TEST(NoteCases, T11) {
  auto b = bound("(10,7)/((3:7, 4_PE), (7:1))", {10, 7}, toy());
  // Padded index (10,0) sits at PE 2 address 14, and that slot decodes as padding.
  auto locs = b.locations({10, 0});
  ASSERT_EQ(locs.size(), 1u);
  EXPECT_EQ(locs[0].units, (V{0, 0, 0, 2}));
  EXPECT_EQ(locs[0].addr, 14u);
  EXPECT_TRUE(b.is_padding({10, 0}));
  EXPECT_EQ(b.inverse({0, 0, 0, 2}, 14).kind, SlotKind::Padding);
  SlotContent pad = b.inverse({0, 0, 0, 3}, 15);
  EXPECT_EQ(pad.kind, SlotKind::Padding);
  EXPECT_EQ(pad.index, (V{11, 1}));
  // Ownership: rows PE0 {0,4,8}, PE1 {1,5,9}, PE2 {2,6,pad}, PE3 {3,7,pad}; 21 words per PE.
  for (std::uint64_t pe = 0; pe < 4; ++pe)
    for (std::uint64_t slot = 0; slot < 3; ++slot) {
      SlotContent s = b.inverse({0, 0, 0, pe}, slot * 7);
      EXPECT_EQ(s.index, (V{slot * 4 + pe, 0}));
      EXPECT_EQ(s.kind, slot * 4 + pe < 10 ? SlotKind::Element : SlotKind::Padding);
    }
  EXPECT_EQ(b.cosize(b.addr_target()), 21u);
}

TEST(NoteCases, T12) {
  auto b = bound("(10,7)/((10:2), (2:1, 4_PE))", {10, 7}, toy());
  expect_at(b, {9, 6}, {0, 0, 0, 2}, 19);
  expect_at(b, {3, 5}, {0, 0, 0, 1}, 7);
  expect_at(b, {0, 3}, {0, 0, 0, 3}, 0);
  SlotContent s = b.inverse({0, 0, 0, 3}, 19);
  EXPECT_EQ(s.kind, SlotKind::Padding);
  EXPECT_EQ(s.index, (V{9, 7}));
}

TEST(NoteCases, T13) {
  const char* text = "((12:8), (8:1); B@[PE])";
  auto b = bound(text, {12, 8}, toy());
  auto locs = b.locations({5, 3});
  ASSERT_EQ(locs.size(), 4u);
  for (std::uint64_t pe = 0; pe < 4; ++pe) {
    EXPECT_EQ(locs[pe].units, (V{0, 0, 0, pe}));
    EXPECT_EQ(locs[pe].addr, 43u);
  }
  expect_element(b, {0, 0, 0, 2}, 43, {5, 3}, 2);
  EXPECT_EQ(bound(text, {12, 8}, board()).replicas(), 8192u);  // MAB, L1B, L2B omitted too
}

TEST(NoteCases, T14) {
  auto b = bound("((2_PE:1, 6:8), (8:1); B@[2_PE:2])", {12, 8}, toy());
  auto locs = b.locations({7, 3});
  ASSERT_EQ(locs.size(), 2u);
  EXPECT_EQ(locs[0].units, (V{0, 0, 0, 1}));
  EXPECT_EQ(locs[1].units, (V{0, 0, 0, 3}));
  EXPECT_EQ(locs[0].addr, 11u);
  EXPECT_EQ(locs[1].addr, 11u);
  expect_element(b, {0, 0, 0, 2}, 8, {1, 0}, 1);
}

const char* kT15 = "((16_L2B, 8_L1B, 8:8), (16_MAB, 8:1, 4_PE))";

TEST(NoteCases, T15) {
  auto b = bound(kT15, {1024, 512}, board());
  expect_at(b, {700, 300}, {10, 7, 9, 0}, 35);
  EXPECT_EQ(b.pe_id(b.locate({700, 300}).units), 5604u);
}
TEST(NoteCases, T16) {
  auto b = bound(kT15, {1024, 512}, board());
  expect_at(b, {1023, 511}, {15, 7, 15, 3}, 63);
  expect_at(b, {64, 33}, {1, 0, 1, 1}, 0);
  EXPECT_EQ(b.cosize(b.addr_target()), 64u);
  EXPECT_EQ(b.pes_used(), 8192u);
  EXPECT_EQ(b.replicas(), 1u);
}

TEST(NoteCases, T17) {
  auto b = bound("((2_L2B:1, 16_MAB, 4:64), (2_L1B:4, 4_PE, 2_W, 8:1), (4_L2B:2, 4_L1B:1, 8:8))",
                 {128, 128, 128}, mn2());
  expect_at(b, {100, 77, 50}, {3, 6, 9, 0}, 21, 1);
  expect_at(b, {127, 127, 127}, {7, 7, 15, 3}, 255, 1);
  EXPECT_EQ(b.cosize(b.addr_target()), 256u);
  EXPECT_EQ(b.cosize(b.lane_target()), 2u);
}

const char* kT18 = "((16:1), (8_MAB:2, 8_L1B:1, 2_MAB:1, 4_PE:1, 2_W:1); B@[8_L2B:1])";

TEST(NoteCases, T18) {
  auto b = bound(kT18, {16, 1024}, mn2());
  auto locs = b.locations({5, 700});
  ASSERT_EQ(locs.size(), 8u);
  for (std::uint64_t l2b = 0; l2b < 8; ++l2b) {
    EXPECT_EQ(locs[l2b].units, (V{l2b, 3, 11, 2}));
    EXPECT_EQ(locs[l2b].addr, 5u);
    EXPECT_EQ(locs[l2b].lane, 0u);
  }
  // On the board (16 L2Bs, and 2 lanes are needed) the L2B half is a W01 warning.
  auto m = board();
  m.pe.words_per_address = 2;
  auto r = bind_layout(parse_layout_or_throw(kT18, m), {16, 1024}, m);
  ASSERT_TRUE(r) << r.validation.errors.front().render();
  ASSERT_EQ(r.validation.warnings.size(), 1u);
  EXPECT_EQ(r.validation.warnings[0].code, "W01");
  EXPECT_EQ(r.validation.warnings[0].message,
            "L2B: the layout uses 8 of the 16 L2Bs on the board; the others hold nothing");
}

TEST(NoteCases, T19) {
  auto b = bound("((4_PE:1, 16:1, 2_W:1))", {128}, mn2());
  expect_at(b, {77}, {0, 0, 0, 2}, 6, 1);
  auto locs = b.locations({77});
  EXPECT_EQ(locs.size(), 8u * 8 * 16);  // replicated over all MAB, L1B, L2B
  for (const auto& l : locs) {
    EXPECT_EQ(l.units[3], 2u);
    EXPECT_EQ(l.addr, 6u);
    EXPECT_EQ(l.lane, 1u);
  }
  EXPECT_EQ(locs.back().units, (V{7, 7, 15, 2}));
}

TEST(NoteCases, T20) {
  auto b = bound("((3_Time, 4_PE), (8:1))", {12, 8}, toy());
  expect_at(b, {9, 5}, {0, 0, 0, 1}, 5, 0, 2);
  try {
    require_resident(b);
    FAIL() << "a _Time layout is not resident";
  } catch (const LayoutError& e) {
    EXPECT_EQ(e.diagnostic().code, "E140");
    EXPECT_EQ(e.diagnostic().column, 3u);
  }
}

}  // namespace
}  // namespace treesim::layout
