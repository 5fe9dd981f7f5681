// The note's error cases X1–X13 and more malformed strings: each gives its code, its message and a
// caret under the offending token (1-based column, length).
#include <gtest/gtest.h>

#include "sim/layout/bound_layout.h"
#include "sim/layout/parse.h"
#include "tests/sim/layout/machines.h"

namespace treesim::layout {
namespace {

using testing::toy;
using V = std::vector<std::uint64_t>;

// The first error from parsing, then binding; fails the test when there is none.
Diagnostic first_error(const std::string& text, const V& shape = {12, 8},
                       const machine::MachineConfig& m = toy()) {
  ParseResult p = parse_layout(text, m);
  if (!p) return *p.error;
  BindResult b = bind_layout(*p.layout, shape, m);
  if (!b) return b.validation.errors.front();
  ADD_FAILURE() << "no error for " << text;
  return {};
}

struct Case {
  const char* text;
  V shape;
  const char* code;
  std::size_t column;
  std::size_t length;
  const char* message;
};

void check(const Case& c, const machine::MachineConfig& m = toy()) {
  Diagnostic d = first_error(c.text, c.shape, m);
  EXPECT_EQ(d.code, c.code) << c.text << "\n" << d.render();
  EXPECT_EQ(d.column, c.column) << c.text << "\n" << d.render();
  EXPECT_EQ(d.length, c.length) << c.text << "\n" << d.render();
  EXPECT_EQ(d.message, c.message) << c.text;
  EXPECT_EQ(d.source, c.text);
}

TEST(NoteErrors, X1) {
  check({"((4_PE, 4:8), (8:1))",
         {12, 8},
         "E040",
         2,
         11,
         "axis 0: sub-axis sizes multiply to 16 (4×4) but tensor dim 0 is 12 (shape (12,8))"});
  Diagnostic d = first_error("((4_PE, 4:8), (8:1))");
  EXPECT_EQ(d.render(),
            "((4_PE, 4:8), (8:1))\n"
            " ^^^^^^^^^^^\n"
            "E040 axis 0: sub-axis sizes multiply to 16 (4×4) but tensor dim 0 is 12 (shape (12,8))\n"
            "     If padding is intended write the logical shape first: (12,8)/((4_PE, 4:8), (8:1))\n");
}
TEST(NoteErrors, X2) {
  check({"((12:1), (8_PE))", {12, 8}, "E050", 11, 4, "PE sub-axes reach index 7 but a MAB has only 4 PEs"});
}
TEST(NoteErrors, X3) {
  check({"((4_PE, 3:8), (8:2))",
         {12, 8},
         "E060",
         16,
         3,
         "elements (0,4) and (1,0) both map to LM address 8 of the same PE"});
}
TEST(NoteErrors, X4) {
  // The note lists the pair as (6,0) and (0,4); we report the pair in enumeration order.
  check({"((2_PE:1, 6:4), (2_PE:1, 4:1))",
         {12, 8},
         "E061",
         18,
         6,
         "elements (0,4) and (6,0) both map to PE 1, address 0 (PE strides 1 and 1 overlap)"});
}
TEST(NoteErrors, X5) {
  check(
      {"((2_PE:1, 6:8), (8:1); B@[2_PE:1])",
       {12, 8},
       "E061",
       27,
       6,
       "element (0,0) replica 1 and element (6,0) both map to PE 1, address 0 (PE strides 1 and 1 overlap)"});
}
TEST(NoteErrors, X6) {
  check({"(13,8)/((4_PE, 3:8), (8:1))",
         {13, 8},
         "E041",
         9,
         11,
         "axis 0 pads to 12 but the logical size is 13"});
}
TEST(NoteErrors, X7) {
  check({"((4_XPE, 3:8), (8:1))",
         {12, 8},
         "E010",
         4,
         4,
         "unknown target suffix '_XPE' (expected L2B, L1B, MAB, PE, W, Time)"});
}
TEST(NoteErrors, X8) {
  check({"((12:8))",
         {12, 8},
         "E030",
         1,
         8,
         "layout has 1 axis tuple(s) but the tensor has rank 2 (shape (12,8))"});
}
TEST(NoteErrors, X9) {
  check({"((4_PE:1, 3), (8:1))",
         {12, 8},
         "E110",
         11,
         1,
         "LM-address sub-axes: give strides for all or none ('3' has none, '8:1' has one)"});
}
TEST(NoteErrors, X10) {
  check({"((4_PE, 3:8), (8:1); B@[PE])",
         {12, 8},
         "E120",
         25,
         2,
         "B@[PE] means all 4 PEs, but PE is already split by 4_PE"});
}
TEST(NoteErrors, X11) { check({"((0_PE, 3:8), (8:1))", {12, 8}, "E020", 3, 1, "size must be ≥ 1"}); }
TEST(NoteErrors, X12) {
  check({"((4_PE, 3:8), (8:1))",
         {12, 8},
         "E070",
         1,
         20,
         "layout needs 24 LM words per PE, LM has 16 (16 bytes / (1 byte(s) × 1 element(s) per word))"},
        toy(16));
}
TEST(LmCapacity, UncheckedBindsAWholeOperandLargerThanTheLm) {
  // X12's layout needs 24 words of a 16-byte LM: refused (E070) unless the capacity is unchecked, as
  // a kernel checks a whole operand it streams in tiles; its distribution is bound all the same.
  const machine::MachineConfig m = toy(16);
  const TensorLayout l = parse_layout_or_throw("((4_PE, 3:8), (8:1))", m);
  const BindResult checked = bind_layout(l, {12, 8}, m);
  ASSERT_FALSE(checked);
  EXPECT_EQ(checked.validation.errors.front().code, "E070");
  const BindResult unchecked = bind_layout(l, {12, 8}, m, 1, LmCapacity::kUnchecked);
  ASSERT_TRUE(unchecked);
  EXPECT_EQ(unchecked.layout->footprint_bytes_per_unit(), 24u);
  // Every other rule still holds: two elements at one place is refused either way.
  const TensorLayout clash = parse_layout_or_throw("((4_PE, 3:1), (8:1))", m);
  EXPECT_FALSE(bind_layout(clash, {12, 8}, m, 1, LmCapacity::kUnchecked));
}

TEST(NoteErrors, X13) {
  check({"((4_PE, 3:8), (8:1)",
         {12, 8},
         "E002",
         20,
         1,
         "expected ',', ';' or ')' at column 20, found end of input (unbalanced '(')"});
  check({"((4_PE 3:8),(8:1))", {12, 8}, "E001", 8, 1, "expected ',' or ')' at column 8, found '3'"});
}

// More malformed or invalid strings, one per rule, so every code of the catalogue is exercised.
TEST(LayoutErrors, Catalogue) {
  const Case cases[] = {
      {"", {12, 8}, "E001", 1, 1, "expected '(' at column 1, found end of input"},
      {"[(4_PE, 3:8), (8:1)]", {12, 8}, "E001", 1, 1, "expected '(' at column 1, found '['"},
      {"((4_PE, 3:8), (8:1)))", {12, 8}, "E002", 21, 1, "unbalanced ')' at column 21"},
      {"((4_PE, 3:8), ())",
       {12, 8},
       "E003",
       15,
       2,
       "empty axis tuple '()' at column 15: an axis needs at least one sub-axis"},
      {"((_PE, 3:8), (8:1))", {12, 8}, "E004", 3, 1, "expected a sub-axis size at column 3, found '_'"},
      {"((4_PE, :8), (8:1))", {12, 8}, "E004", 9, 1, "expected a sub-axis size at column 9, found ':'"},
      {"((4_PE, 3:), (8:1))", {12, 8}, "E005", 10, 2, "':' without a stride at column 10, found ')'"},
      {"((4_PE, 3:8), (8:1)) x", {12, 8}, "E006", 22, 1, "unexpected 'x' at column 22 after the layout"},
      {"((4_pe, 3:8), (8:1))",
       {12, 8},
       "E010",
       4,
       3,
       "unknown target suffix '_pe' (expected L2B, L1B, MAB, PE, W, Time)"},
      {"((4_, 3:8), (8:1))",
       {12, 8},
       "E001",
       5,
       1,
       "expected a target suffix after '_' at column 5, found ','"},
      {"((12:8), (8:1); B@[XB])",
       {12, 8},
       "E010",
       20,
       2,
       "unknown level 'XB' in the broadcast list (expected L2B, L1B, MAB, PE)"},
      {"((12:8), (8:1); B@[W])",
       {12, 8},
       "E010",
       20,
       1,
       "unknown level 'W' in the broadcast list (expected L2B, L1B, MAB, PE)"},
      {"((12:8), (8:1); C@[PE])",
       {12, 8},
       "E001",
       17,
       1,
       "expected an annotation 'B@[...]' at column 17, found 'C'"},
      {"((12:8), (8:1); B@PE)", {12, 8}, "E001", 19, 1, "expected '[' after 'B@' at column 19, found 'P'"},
      {"((12:8), (8:1); B@[PE)", {12, 8}, "E001", 22, 1, "expected ',' or ']' at column 22, found ')'"},
      {"((4_PE, 3:8), (99999999999999999999:1))", {12, 8}, "E021", 16, 20, "value exceeds 2^62"},
      {"((4_PE, 3:8), (8:1), (2:1))",
       {12, 8},
       "E030",
       1,
       27,
       "layout has 3 axis tuple(s) but the tensor has rank 2 (shape (12,8))"},
      {"(10,7,1)/((3:7, 4_PE), (7:1))",
       {10, 7},
       "E031",
       1,
       9,
       "pad prefix has rank 3 but the tensor has rank 2"},
      {"(10,6)/((3:7, 4_PE), (7:1))",
       {10, 7},
       "E042",
       1,
       7,
       "pad prefix declares logical shape (10,6) but the tensor is (10,7)"},
      {"((4_PE, 3:8), (7:1))",
       {12, 8},
       "E040",
       15,
       5,
       "axis 1: sub-axis sizes multiply to 7 (7) but tensor dim 1 is 8 (shape (12,8))"},
      {"((4_L2B, 3:8), (8:1))",
       {12, 8},
       "E050",
       3,
       5,
       "L2B sub-axes reach index 3 but the board has only 1 L2Bs"},
      {"((2_PE:3, 6:8), (2_PE:1, 4:1))",
       {12, 8},
       "E050",
       3,
       6,
       "PE sub-axes reach index 4 but a MAB has only 4 PEs"},
      {"((12:8), (4:2, 2_W))",
       {12, 8},
       "E052",
       16,
       3,
       "layout uses _W lanes but this machine holds 1 element per LM address (pe.words_per_address = 1)"},
      {"((4_PE, 3:0), (8:1))",
       {12, 8},
       "E060",
       9,
       3,
       "elements (0,0) and (1,0) both map to LM address 0 of the same PE"},
      {"((4_PE:0, 3:8), (8:1))",
       {12, 8},
       "E061",
       3,
       6,
       "elements (0,0) and (3,0) both map to PE 0, address 0 (PE strides 0 overlap)"},
      {"((3_Time:1, 4_PE), (2_Time:1, 4:1))",
       {12, 8},
       "E063",
       21,
       8,
       "elements (0,4) and (4,0) both map to time step 1 at the same unit and address"},
      {"((12:8), (8:1); B@[2_PE, 4_PE:1])",
       {12, 8},
       "E110",
       20,
       4,
       "PE sub-axes: give strides for all or none ('2_PE' has none, '4_PE:1' has one)"},
      {"((4_PE, 3:8), (8:1); B@[2_PE])",
       {12, 8},
       "E111",
       3,
       4,
       "PE is both distributed and broadcast: give every PE sub-axis an explicit stride ('4_PE' has none)"},
      {"((12:8), (8:1); B@[PE, PE])", {12, 8}, "E121", 24, 2, "B@[PE] is listed twice"},
      {"((12:8), (8:1); B@[PE, 2_PE])",
       {12, 8},
       "E120",
       20,
       2,
       "B@[PE] means all 4 PEs, but PE is also replicated by 2_PE"},
  };
  for (const Case& c : cases) check(c);
}

TEST(LayoutErrors, LaneRange) {
  auto m = testing::mn2();
  check({"((12:8), (2:2, 4_W:1))",
         {12, 8},
         "E051",
         16,
         5,
         "W sub-axes reach lane 3 but an LM address holds 2 elements"},
        m);
}

TEST(LayoutErrors, QueriesOutsideTheTensorOrMachine) {
  auto m = toy();
  BoundLayout b = bind_or_throw(parse_layout_or_throw("(10,7)/((3:7, 4_PE), (7:1))", m), {10, 7}, m);
  try {
    b.locate({10, 0});
    FAIL();
  } catch (const LayoutError& e) {
    EXPECT_EQ(e.diagnostic().headline(), "E150 index (10,0) outside logical shape (10,7)");
  }
  EXPECT_THROW(b.locations({12, 0}), LayoutError);
  EXPECT_THROW(b.inverse({0, 0, 0, 4}, 0), LayoutError);
  EXPECT_THROW(b.inverse({0, 0, 0}, 0), LayoutError);
  EXPECT_EQ(b.inverse({0, 0, 0, 0}, 1000).kind, SlotKind::Empty);
}

TEST(LayoutErrors, WarningsW01ToW05) {
  auto m = testing::board();
  auto warnings = [&](const std::string& text, const V& shape) {
    BindResult r = bind_layout(parse_layout_or_throw(text, m), shape, m);
    EXPECT_TRUE(r) << text;
    std::vector<std::string> out;
    for (const auto& w : r.validation.warnings) out.push_back(w.headline());
    return out;
  };
  EXPECT_EQ(warnings("((3_PE, 4:8), (8:1))", {12, 8}),
            (std::vector<std::string>{
                "W01 PE: the layout uses 3 of the 4 PEs under each MAB; the others hold nothing",
                "W02 PE: sizes multiply to 3, which does not divide the fan-out 4"}));
  EXPECT_EQ(warnings("(9,8)/((4_PE, 4:8), (8:1))", {9, 8}),
            (std::vector<std::string>{"W03 padding wastes 43.8% of the slots (56 of 128)"}));
  EXPECT_EQ(warnings("((4_PE, 3:16), (8:1))", {12, 8}),
            (std::vector<std::string>{
                "W04 LM addresses have holes: the layout spans 40 addresses per PE but fills 24"}));
  EXPECT_EQ(
      warnings("((12:8), (8:1); B@[PE])", {12, 8}),
      (std::vector<std::string>{"W05 B@[PE] is redundant: a level no sub-axis names is copied to all its "
                                "units anyway"}));
  EXPECT_TRUE(warnings("((16_L2B, 8_L1B, 8:8), (16_MAB, 8:1, 4_PE))", {1024, 512}).empty());
}

}  // namespace
}  // namespace treesim::layout
