// Halo loads (halo.h): the traffic of a windowed load expanded at the PEs against a brute force that
// visits every slot of the layout, asks which input element its window reads (a direct formula,
// not the window walk halo.h uses), and builds every unit's element set from its PEs'.
#include "sim/program/halo.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include <fmt/format.h>

#include "sim/layout/parse.h"
#include "sim/layout/slots.h"
#include "tests/configs.h"

namespace treesim::program {
namespace {

struct Case {
  std::uint64_t n, h, w, c, r, stride, dilation, pad;
  std::vector<std::uint64_t> offset, shape;
  std::string layout;
};

// The input element slot (row, col) of the window's matrix reads, or −1 in the padding.
std::int64_t element_of(const Case& k, const Window& w, std::uint64_t row, std::uint64_t col) {
  const std::uint64_t img = row / (w.out_h * w.out_w), oh = row / w.out_w % w.out_h, ow = row % w.out_w;
  const std::uint64_t ch = col / (w.r * w.s), tr = col / w.s % w.r, ts = col % w.s;
  const std::int64_t y =
      static_cast<std::int64_t>(oh * k.stride + tr * k.dilation) - static_cast<std::int64_t>(k.pad);
  const std::int64_t x =
      static_cast<std::int64_t>(ow * k.stride + ts * k.dilation) - static_cast<std::int64_t>(k.pad);
  if (y < 0 || x < 0 || y >= static_cast<std::int64_t>(k.h) || x >= static_cast<std::int64_t>(k.w)) return -1;
  return static_cast<std::int64_t>(
      ((img * k.h + static_cast<std::uint64_t>(y)) * k.w + static_cast<std::uint64_t>(x)) * k.c + ch);
}

void check(const Case& k) {
  SCOPED_TRACE(k.layout);
  const machine::MachineConfig m = testing::mini();
  Window w;
  w.r = w.s = k.r;
  w.stride_h = w.stride_w = k.stride;
  w.dilation_h = w.dilation_w = k.dilation;
  w.pad_top = w.pad_left = k.pad;
  const std::uint64_t span = k.dilation * (k.r - 1) + 1;
  w.out_h = (k.h + 2 * k.pad - span) / k.stride + 1;
  w.out_w = (k.w + 2 * k.pad - span) / k.stride + 1;
  w.channels = k.c;
  const std::vector<std::uint64_t> tensor{k.n, k.h, k.w, k.c};
  const layout::BoundLayout b =
      layout::bind_or_throw(layout::parse_layout_or_throw(k.layout, m), k.shape, m, 1);

  // Every PE's elements, then every unit's as the union below it (unit = PE id / PEs below a unit).
  const std::size_t levels = m.levels.size();
  std::vector<std::uint64_t> below(levels + 1, 1);  // PEs below one unit of level l (below[levels] = 1)
  for (std::size_t l = levels; l-- > 0;)
    below[l] = below[l + 1] * (l + 1 < levels ? m.levels[l + 1].fanout : 1);
  std::vector<std::map<std::uint64_t, std::set<std::int64_t>>> need(levels);
  std::set<std::int64_t> board;
  layout::for_each_slot(b, [&](std::uint64_t pe, std::uint64_t, std::int64_t e) {
    if (e < 0) return;
    const std::uint64_t row = static_cast<std::uint64_t>(e) / k.shape[1],
                        col = static_cast<std::uint64_t>(e) % k.shape[1];
    const std::int64_t x = element_of(k, w, k.offset[0] + row, k.offset[1] + col);
    if (x < 0) return;
    board.insert(x);
    for (std::size_t l = 0; l < levels; ++l) need[l][pe / below[l]].insert(x);
  });

  const HaloTraffic h = halo_traffic(w, tensor, k.offset, b);
  EXPECT_EQ(h.plan.dram_read_bytes, board.size());
  std::uint64_t largest = 0;
  for (const auto& [pe, s] : need[levels - 1]) largest = std::max<std::uint64_t>(largest, s.size());
  EXPECT_EQ(h.largest_patch, largest);
  for (std::size_t x = 0; x < levels; ++x) {
    SCOPED_TRACE(m.levels[x].name);
    std::uint64_t delivered = 0, sent = 0, busiest = 0;
    std::vector<layout::PortBytes> ports;
    for (const auto& [u, s] : need[x]) delivered += s.size();
    if (x == 0) {
      sent = busiest = board.size();
      ports.push_back({0, board.size()});
    } else {
      for (const auto& [p, s] : need[x - 1]) {
        sent += s.size();
        busiest = std::max<std::uint64_t>(busiest, s.size());
        ports.push_back({p, s.size()});
      }
    }
    EXPECT_EQ(h.plan.levels[x].down_delivered_bytes, delivered);
    EXPECT_EQ(h.plan.levels[x].down_sent_bytes, sent);
    EXPECT_EQ(h.plan.levels[x].busiest_down_port_bytes, busiest);
    ASSERT_EQ(h.ports[x].size(), ports.size());
    for (std::size_t i = 0; i < ports.size(); ++i) {
      EXPECT_EQ(h.ports[x][i].parent, ports[i].parent);
      EXPECT_EQ(h.ports[x][i].bytes, ports[i].bytes);
    }
  }
}

// Rows over the MABs and PEs in blocks (a PE's rows are neighbouring pixels).
TEST(HaloTraffic, RowBlocksOverTheTreeMatchABruteForce) {
  check({1, 9, 8, 3, 3, 1, 1, 1, {0, 0}, {72, 27}, "(72,27)/((2_L1B, 4_MAB, 4_PE, 5:27), (27:1))"});
}

// Rows dealt round-robin (the PE digits innermost): each PE's rows are far apart.
TEST(HaloTraffic, RowsDealtRoundRobinMatchABruteForce) {
  check({1, 9, 8, 3, 3, 1, 1, 1, {0, 0}, {72, 27}, "(72,27)/((5:27, 2_L1B, 4_MAB, 4_PE), (27:1))"});
}

// Columns (channels × taps) split over the PEs, rows over the MABs; the L1Bs hold copies.
TEST(HaloTraffic, ColumnsSplitAndCopiesMatchABruteForce) {
  check({1, 7, 7, 4, 3, 1, 1, 1, {0, 0}, {49, 36}, "(49,36)/((4_MAB, 13:9), (4_PE, 9:1))"});
}

// Strided, dilated windows over two images, a block inside the matrix with padding rows.
TEST(HaloTraffic, AStridedDilatedBlockOfTwoImagesMatchesABruteForce) {
  check({2, 11, 9, 2, 3, 2, 2, 2, {5, 4}, {30, 12}, "(30,12)/((2_L1B, 4_MAB, 4_PE, 2:12), (12:1))"});
}

// A unit's patch holds each element once however many of its slots read it: a same-padded 3×3 on one
// PE reads the whole image, once.
TEST(HaloTraffic, OnePeReceivesEachElementOnce) {
  const machine::MachineConfig m = testing::mini();
  Window w;
  w.r = w.s = 3, w.pad_top = w.pad_left = 1, w.out_h = 5, w.out_w = 4, w.channels = 2;
  const layout::BoundLayout b = layout::bind_or_throw(
      layout::parse_layout_or_throw("((1_L1B, 1_MAB, 1_PE, 20:18), (18:1))", m), {20, 18}, m, 1);
  const HaloTraffic h = halo_traffic(w, {1, 5, 4, 2}, {0, 0}, b);
  EXPECT_EQ(h.largest_patch, 40u);
  EXPECT_EQ(h.pes, 1u);
  EXPECT_EQ(h.plan.levels.back().down_delivered_bytes, 40u);
}

// A unit's needs are the union of its PEs' however they are spread: runs of one element over a
// tensor far wider than they are, often the same in several PEs (unions by merging), runs packed
// close with long ones among them (unions over bits, across word boundaries); checked against sets.
// Each PE draws runs_per_pe runs of 1 to `longest` elements, starting at multiples of `spread`.
// On mini (units of at most 4 children, whose unions scan their children's heads) or with `wide`
// on mncore-die (an L1B of 16 MABs: its unions keep a heap of them).
void check_needs(std::uint64_t tensor, std::uint64_t spread, std::uint64_t runs_per_pe, std::uint64_t longest,
                 std::uint64_t seed, bool wide = false) {
  const machine::MachineConfig m = wide ? testing::config("mncore-die") : testing::mini();
  const layout::BoundLayout b =
      wide ? layout::bind_or_throw(layout::parse_layout_or_throw("((4_L2B, 8_L1B, 16_MAB, 4_PE, 4:1))", m),
                                   {8192}, m, 1)
           : layout::bind_or_throw(layout::parse_layout_or_throw("((2_L1B, 4_MAB, 4_PE, 4:1))", m), {128}, m,
                                   1);
  const std::size_t levels = m.levels.size();
  std::vector<std::uint64_t> below(levels + 1, 1);
  for (std::size_t l = levels; l-- > 0;)
    below[l] = below[l + 1] * (l + 1 < levels ? m.levels[l + 1].fanout : 1);
  std::mt19937_64 gen(seed);
  std::vector<std::vector<ElementRun>> pe_needs(b.pe_count());
  std::vector<std::map<std::uint64_t, std::set<std::uint64_t>>> need(levels);
  std::set<std::uint64_t> board;
  for (std::uint64_t pe = 0; pe < b.pe_count(); ++pe) {
    std::set<std::uint64_t> mine;
    for (std::uint64_t k = 0; k < runs_per_pe; ++k) {
      const std::uint64_t first = gen() % (tensor / spread) * spread, count = 1 + gen() % longest;
      for (std::uint64_t e = first; e < std::min(tensor, first + count); ++e) mine.insert(e);
    }
    for (std::uint64_t e : mine) {
      if (!pe_needs[pe].empty() && pe_needs[pe].back().first + pe_needs[pe].back().count == e)
        ++pe_needs[pe].back().count;
      else
        pe_needs[pe].push_back({e, 1});
      board.insert(e);
      for (std::size_t l = 0; l < levels; ++l) need[l][pe / below[l]].insert(e);
    }
  }
  const HaloTraffic h = needs_traffic(pe_needs, b);
  EXPECT_EQ(h.plan.dram_read_bytes, board.size());
  for (std::size_t x = 0; x < levels; ++x) {
    SCOPED_TRACE(m.levels[x].name);
    std::uint64_t delivered = 0;
    for (const auto& [u, s] : need[x]) delivered += s.size();
    EXPECT_EQ(h.plan.levels[x].down_delivered_bytes, delivered);
    if (x == 0) continue;
    ASSERT_EQ(h.ports[x].size(), need[x - 1].size());
    std::size_t i = 0;
    for (const auto& [p, s] : need[x - 1]) EXPECT_EQ(h.ports[x][i++].bytes, s.size()) << "parent " << p;
  }
}

TEST(NeedsTraffic, SingleElementsOverAWideTensorUniteAsSets) { check_needs(1'000'000, 331, 50, 1, 1); }

TEST(NeedsTraffic, PackedRunsOfManyLengthsUniteAsSets) { check_needs(2'000, 1, 40, 150, 2); }

TEST(NeedsTraffic, RunsUnderWideUnitsUniteAsSets) { check_needs(1'000'000, 7, 20, 3, 3, true); }

}  // namespace
}  // namespace treesim::program
