// Windowed converts (window_convert.h): a convolution's windows read from a tensor held in the LMs.
// The traffic is checked against a brute force that visits every slot of both layouts, asks which
// element a slot's window reads (a direct formula) and which PE holds it, and builds each unit's
// element sets; a 1×1 window is a plain conversion and must move what plan_conversion moves.
#include "sim/program/window_convert.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "sim/layout/parse.h"
#include "sim/layout/slots.h"
#include "sim/program/checked_program.h"
#include "sim/program/program_text.h"
#include "tests/configs.h"

namespace treesim::program {
namespace window_convert_test {

struct Case {
  std::uint64_t n, h, w, c, r, stride, pad;
  std::string from;  // of the tensor as (N·H·W, C)
  std::vector<std::uint64_t> offset, shape;
  std::string to;  // of the block of the window's matrix
};

Window window_of(const Case& k) {
  Window w;
  w.r = w.s = k.r;
  w.stride_h = w.stride_w = k.stride;
  w.pad_top = w.pad_left = k.pad;
  w.out_h = (k.h + 2 * k.pad - k.r) / k.stride + 1;
  w.out_w = (k.w + 2 * k.pad - k.r) / k.stride + 1;
  w.channels = k.c;
  return w;
}

// The element slot (row, col) of the window's matrix reads, or −1 in the padding.
std::int64_t element_of(const Case& k, const Window& w, std::uint64_t row, std::uint64_t col) {
  const std::uint64_t img = row / (w.out_h * w.out_w), oh = row / w.out_w % w.out_h, ow = row % w.out_w;
  const std::uint64_t ch = col / (w.r * w.s), tr = col / w.s % w.r, ts = col % w.s;
  const std::int64_t y = static_cast<std::int64_t>(oh * k.stride + tr) - static_cast<std::int64_t>(k.pad);
  const std::int64_t x = static_cast<std::int64_t>(ow * k.stride + ts) - static_cast<std::int64_t>(k.pad);
  if (y < 0 || x < 0 || y >= static_cast<std::int64_t>(k.h) || x >= static_cast<std::int64_t>(k.w)) return -1;
  return static_cast<std::int64_t>(
      ((img * k.h + static_cast<std::uint64_t>(y)) * k.w + static_cast<std::uint64_t>(x)) * k.c + ch);
}

void check(const Case& k) {
  SCOPED_TRACE(k.from + " → " + k.to);
  const machine::MachineConfig m = testing::mini();
  const Window w = window_of(k);
  const layout::BoundLayout from =
      layout::bind_or_throw(layout::parse_layout_or_throw(k.from, m), {k.n * k.h * k.w, k.c}, m, 1);
  const layout::BoundLayout to = layout::bind_or_throw(layout::parse_layout_or_throw(k.to, m), k.shape, m, 1);
  const std::size_t levels = m.levels.size();
  std::vector<std::uint64_t> below(levels, 1);  // PEs below one unit of level l
  for (std::size_t l = levels - 1; l-- > 0;) below[l] = below[l + 1] * m.levels[l + 1].fanout;

  std::map<std::int64_t, std::set<std::uint64_t>> holders;
  layout::for_each_slot(from, [&](std::uint64_t pe, std::uint64_t, std::int64_t e) {
    if (e >= 0) holders[e].insert(pe);
  });
  std::map<std::int64_t, std::set<std::uint64_t>> readers;
  std::vector<std::uint64_t> by_lca(levels + 1, 0);
  auto shared = [&](std::uint64_t a, std::uint64_t b) {
    std::size_t d = 0;
    while (d < levels && a / below[d] == b / below[d]) ++d;
    return d;
  };
  // The copy a reader takes: the one sharing the most levels with it, the lowest PE on ties.
  auto source = [&](std::int64_t e, std::uint64_t pe) {
    std::uint64_t best = *holders.at(e).begin();
    for (std::uint64_t h : holders.at(e))
      if (shared(h, pe) > shared(best, pe)) best = h;
    return best;
  };
  layout::for_each_slot(to, [&](std::uint64_t pe, std::uint64_t, std::int64_t e) {
    if (e < 0) return;
    const std::int64_t x = element_of(k, w, k.offset[0] + static_cast<std::uint64_t>(e) / k.shape[1],
                                      k.offset[1] + static_cast<std::uint64_t>(e) % k.shape[1]);
    if (x < 0) return;
    readers[x].insert(pe);
    ++by_lca[shared(source(x, pe), pe)];
  });

  const layout::ConversionPlan plan = window_conversion(w, {k.n, k.h, k.w, k.c}, k.offset, from, to);
  EXPECT_EQ(plan.copies_by_lca, by_lca);
  for (std::size_t x = 0; x < levels; ++x) {
    SCOPED_TRACE(m.levels[x].name);
    // Per unit of level x: elements it receives, and elements it sends up; per parent port, the
    // elements any child receives and the sum its children send.
    std::map<std::uint64_t, std::set<std::int64_t>> in, out, port_in;
    std::map<std::uint64_t, std::uint64_t> port_up;
    for (const auto& [e, pes] : readers) {
      for (std::uint64_t pe : pes) {
        const std::uint64_t h = source(e, pe);
        const std::uint64_t u = pe / below[x], parent = x == 0 ? 0 : pe / below[x - 1];
        if (h / below[x] != u) in[u].insert(e), port_in[parent].insert(e);
        if (pe / below[x] != h / below[x]) out[h / below[x]].insert(e);
      }
    }
    std::uint64_t delivered = 0, sent = 0, busiest_down = 0, up = 0, busiest_up = 0;
    for (const auto& [u, s] : in) delivered += s.size();
    for (const auto& [p, s] : port_in)
      sent += s.size(), busiest_down = std::max<std::uint64_t>(busiest_down, s.size());
    for (const auto& [u, s] : out) {
      up += s.size();
      port_up[x == 0 ? 0 : u / m.levels[x].fanout] += s.size();
    }
    for (const auto& [p, bytes] : port_up) busiest_up = std::max(busiest_up, bytes);
    EXPECT_EQ(plan.levels[x].down_delivered_bytes, delivered);
    EXPECT_EQ(plan.levels[x].down_sent_bytes, sent);
    EXPECT_EQ(plan.levels[x].busiest_down_port_bytes, busiest_down);
    EXPECT_EQ(plan.levels[x].up_sent_bytes, up);
    EXPECT_EQ(plan.levels[x].busiest_up_port_bytes, busiest_up);
  }
}

// The one before's output in row blocks over the PEs, read by windows in the same row blocks: each
// PE takes most of its elements from its own LM, the border rows from its neighbours.
TEST(WindowConversion, RowBlocksLikeTheirSourceMatchABruteForce) {
  check({1,
         9,
         8,
         3,
         3,
         1,
         1,
         "(72,3)/((2_L1B, 4_MAB, 4_PE, 3:3), (3:1))",
         {0, 0},
         {72, 27},
         "(72,27)/((2_L1B, 4_MAB, 4_PE, 3:27), (27:1))"});
}

// Source rows dealt round-robin, windows in blocks: almost everything crosses the tree.
TEST(WindowConversion, RoundRobinSourceMatchesABruteForce) {
  check({1,
         9,
         8,
         3,
         3,
         1,
         1,
         "(72,3)/((3:3, 2_L1B, 4_MAB, 4_PE), (3:1))",
         {0, 0},
         {72, 27},
         "(72,27)/((2_L1B, 4_MAB, 4_PE, 3:27), (27:1))"});
}

// Strided windows over two images, a block of the matrix (some channels), columns split over PEs
// and copies of the rows in both L1Bs.
TEST(WindowConversion, AStridedBlockWithCopiesMatchesABruteForce) {
  check({2,
         7,
         6,
         4,
         3,
         2,
         1,
         "(84,4)/((2_L1B, 4_MAB, 4_PE, 3:4), (4:1))",
         {4, 9},
         {20, 18},
         "(20,18)/((4_MAB, 5:18), (2_PE, 9:1); B@[2_L1B])"});
}

// The source copied in both L1Bs (as a plan that leaves a level unused keeps its output): each
// reader takes the copy in its own L1B.
TEST(WindowConversion, ACopiedSourceIsReadFromTheNearestCopy) {
  check({1,
         9,
         8,
         3,
         3,
         1,
         1,
         "(72,3)/((4_MAB, 4_PE, 5:3), (3:1); B@[2_L1B])",
         {0, 0},
         {72, 27},
         "(72,27)/((2_L1B, 4_MAB, 4_PE, 3:27), (27:1))"});
}

// A 1×1 window with stride 1 reads the tensor as it is: the conversion's traffic is
// plan_conversion's between the same layouts.
TEST(WindowConversion, AOneByOneWindowMovesWhatAPlainConversionMoves) {
  const machine::MachineConfig m = testing::mini();
  const Case k{1,
               6,
               6,
               4,
               1,
               1,
               0,
               "(36,4)/((2_L1B, 4_MAB, 4_PE, 2:4), (4:1))",
               {0, 0},
               {36, 4},
               "(36,4)/((3:4, 2_L1B, 4_MAB, 4_PE), (4:1))"};
  const layout::BoundLayout from =
      layout::bind_or_throw(layout::parse_layout_or_throw(k.from, m), {36, 4}, m, 1);
  const layout::BoundLayout to = layout::bind_or_throw(layout::parse_layout_or_throw(k.to, m), {36, 4}, m, 1);
  const layout::ConversionPlan windowed = window_conversion(window_of(k), {1, 6, 6, 4}, {0, 0}, from, to);
  const layout::ConversionPlan plain = layout::plan_conversion(from, to);
  // A windowed convert writes another LM range: what plan_conversion finds already in place is a
  // copy inside the PE there.
  std::vector<std::uint64_t> copies = plain.copies_by_lca;
  copies.back() += plain.in_place;
  EXPECT_GT(plain.in_place, 0u);
  EXPECT_EQ(windowed.copies_by_lca, copies);
  EXPECT_EQ(windowed.levels, plain.levels);
  EXPECT_GT(windowed.link_bytes(), 0u);
}

const std::vector<std::string> kNames{"L2B", "L1B", "MAB", "PE"};

constexpr const char* kProgram = R"P(tensor X shape=30,4 dtype=int8
convert tensor=X from="(30,4)/((2_L1B, 4_MAB, 4_PE, 1:4), (4:1))" src=0 to="(30,36)/((2_L1B, 4_MAB, 4_PE, 1:36), (36:1))" dst=1024 offset=0,0 shape=30,36 window=3,3,1,1,1,1,1,1,6,5,0,4 view=1,6,5,4 pad=-2
)P";

TEST(WindowConversion, ProgramTextRoundTrips) {
  const Program p = parse_program(kProgram, "p.txt", kNames);
  const auto& c = std::get<Convert>(p.instrs.at(0));
  ASSERT_TRUE(c.window);
  EXPECT_EQ(c.window->out_h, 6u);
  EXPECT_EQ(c.view, (std::vector<std::uint64_t>{1, 6, 5, 4}));
  EXPECT_EQ(parse_program(print_program(p, kNames), "p.txt", kNames).instrs, p.instrs);
}

TEST(WindowConversion, AViewOfAnotherElementCountIsRefused) {
  const machine::MachineConfig m = testing::mini();
  std::string text = kProgram;
  text.replace(text.find("view=1,6,5,4"), 12, "view=1,6,5,3");
  const CheckedProgram c = check_program(parse_program(text, "p.txt", kNames), m);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.errors[0].where, "instruction 0 (convert)");
  EXPECT_NE(c.errors[0].message().find("view (1,6,5,3) has 90 elements"), std::string::npos)
      << c.errors[0].message();
}

}  // namespace window_convert_test
}  // namespace treesim::program
