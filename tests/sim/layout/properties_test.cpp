// Post-conditions over whole small domains, on random layouts over random small machines.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <set>

#include "sim/layout/convert.h"
#include "sim/layout/enumerate.h"
#include "sim/layout/loader_plan.h"
#include "sim/layout/port_traffic.h"
#include "sim/layout/slots.h"
#include "sim/layout/unit_view.h"
#include "tests/sim/layout/random_layouts.h"

namespace treesim::layout {
namespace {

using testing::all_indices;
using testing::random_case;
using V = std::vector<std::uint64_t>;

constexpr unsigned kCases = 400;

// Calls f(bound) for every random case that binds; checks that enough of them do.
template <class F>
void for_random_layouts(F f) {
  unsigned valid = 0;
  for (unsigned seed = 0; seed < kCases; ++seed) {
    auto c = random_case(seed);
    ParseResult p = parse_layout(c.text, c.machine);
    ASSERT_TRUE(p) << c.text << "\n" << p.error->render();
    BindResult b = bind_layout(*p.layout, c.shape, c.machine, 1 + seed % 4);
    if (!b) continue;
    ++valid;
    SCOPED_TRACE(c.text + " shape " + shape_string(c.shape) + " seed " + std::to_string(seed));
    f(*b.layout, c);
  }
  EXPECT_GT(valid, kCases / 2);
}

// All unit coordinate vectors of a machine.
std::vector<V> all_units(const BoundLayout& b) {
  V fan;
  for (std::size_t lv = 0; lv < b.level_count(); ++lv) fan.push_back(b.fanout(lv));
  return all_indices(fan);
}

TEST(LayoutProperties, PrintParseRoundTrip) {
  for (unsigned seed = 0; seed < kCases; ++seed) {
    auto c = random_case(seed);
    TensorLayout l = parse_layout_or_throw(c.text, c.machine);
    std::string printed = to_string(l);
    TensorLayout again = parse_layout_or_throw(printed, c.machine);
    EXPECT_EQ(again, l) << c.text << " printed " << printed;
    EXPECT_EQ(to_string(again), printed);
  }
}

TEST(LayoutProperties, LocateThenInverseIsIdentityForEveryReplica) {
  for_random_layouts([](const BoundLayout& b, const testing::RandomCase&) {
    for (const V& x : all_indices(b.padded_shape())) {
      auto locs = b.locations(x);
      ASSERT_EQ(locs.size(), b.replicas());
      for (std::uint64_t r = 0; r < locs.size(); ++r) {
        SlotContent s = b.inverse(locs[r].units, locs[r].addr, locs[r].lane, locs[r].time);
        ASSERT_EQ(s.index, x);
        ASSERT_EQ(s.replica, r);
        ASSERT_EQ(s.kind, b.is_padding(x) ? SlotKind::Padding : SlotKind::Element);
      }
    }
  });
}

TEST(LayoutProperties, EveryFootprintSlotDecodesToExactlyOneThing) {
  for_random_layouts([](const BoundLayout& b, const testing::RandomCase&) {
    std::uint64_t filled = 0;
    for (const V& u : all_units(b))
      for (std::uint64_t a = 0; a < b.cosize(b.addr_target()); ++a)
        for (std::uint64_t w = 0; w < b.words_per_address(); ++w) {
          SlotContent s = b.inverse(u, a, w);
          if (s.kind == SlotKind::Empty) continue;
          ++filled;
          Location back = b.locations(s.index).at(s.replica);
          ASSERT_EQ(back.units, u);
          ASSERT_EQ(back.addr, a);
          ASSERT_EQ(back.lane, w);
        }
    EXPECT_EQ(filled, b.padded_elements() * b.replicas());
  });
}

TEST(LayoutProperties, ForEachSlotVisitsExactlyTheLocatedSlots) {
  for_random_layouts([](const BoundLayout& b, const testing::RandomCase&) {
    std::map<std::pair<std::uint64_t, std::uint64_t>, std::int64_t> expected, seen;
    std::int64_t linear = 0;
    for (const V& x : all_indices(b.padded_shape())) {
      std::int64_t element = -1;
      if (!b.is_padding(x)) {
        element = 0;
        for (std::size_t d = 0; d < x.size(); ++d)
          element = element * static_cast<std::int64_t>(b.shape()[d]) + x[d];
      }
      for (const auto& l : b.locations(x))
        expected[{b.pe_id(l.units), (l.addr * b.words_per_address() + l.lane) * b.element_bytes()}] = element;
      ++linear;
    }
    for_each_slot(b, [&](std::uint64_t pe, std::uint64_t off, std::int64_t e) {
      EXPECT_TRUE(seen.emplace(std::make_pair(pe, off), e).second) << "slot visited twice";
    });
    EXPECT_EQ(seen, expected);
  });
}

// A loader moving a block of a larger tensor gets elements as indices into that tensor: the same
// runs in the same order, each element e re-indexed with the tensor's strides from the origin.
TEST(LayoutProperties, SlicesOfARunWalkVisitTheWholeWalkOnce) {
  // Split at every third value of the outer digit (and in one piece past its end): the slices'
  // runs, in slice order, are the whole walk's, in order.
  for_random_layouts([](const BoundLayout& b, const testing::RandomCase&) {
    using Run = std::array<std::int64_t, 4>;
    auto runs_of = [&](OuterSlice slice) {
      std::vector<Run> out;
      for_each_run(
          b,
          [&](std::uint64_t pe, std::uint64_t off, std::int64_t e, std::uint64_t n) {
            out.push_back({static_cast<std::int64_t>(pe), static_cast<std::int64_t>(off), e,
                           static_cast<std::int64_t>(n)});
          },
          {}, slice);
      return out;
    };
    const std::vector<Run> whole = runs_of({});
    std::vector<Run> sliced;
    const std::uint64_t digits = outer_digits(b);
    for (std::uint64_t lo = 0; lo < digits; lo += 3) {
      const std::vector<Run> part = runs_of({lo, lo + 3});
      sliced.insert(sliced.end(), part.begin(), part.end());
    }
    EXPECT_EQ(sliced, whole);
    EXPECT_TRUE(runs_of({digits, digits + 5}).empty());
  });
}

TEST(LayoutProperties, ForEachRunWithElementIndexUsesTheTensorsStrides) {
  for_random_layouts([](const BoundLayout& b, const testing::RandomCase&) {
    const std::size_t rank = b.rank();
    ElementIndex index;
    index.origin = 5;
    index.strides.assign(rank, 1);
    for (std::size_t d = rank; d-- > 1;) index.strides[d - 1] = index.strides[d] * (b.shape()[d] + 3);
    std::vector<std::array<std::int64_t, 4>> plain, indexed;
    for_each_run(b, [&](std::uint64_t pe, std::uint64_t off, std::int64_t e, std::uint64_t n) {
      plain.push_back(
          {static_cast<std::int64_t>(pe), static_cast<std::int64_t>(off), e, static_cast<std::int64_t>(n)});
    });
    for_each_run(
        b,
        [&](std::uint64_t pe, std::uint64_t off, std::int64_t e, std::uint64_t n) {
          indexed.push_back({static_cast<std::int64_t>(pe), static_cast<std::int64_t>(off), e,
                             static_cast<std::int64_t>(n)});
        },
        index);
    ASSERT_EQ(plain.size(), indexed.size());
    for (std::size_t i = 0; i < plain.size(); ++i) {
      std::int64_t want = plain[i][2];
      if (want >= 0) {
        std::uint64_t rest = static_cast<std::uint64_t>(want), full = index.origin;
        for (std::size_t d = rank; d-- > 0;) {
          full += rest % b.shape()[d] * index.strides[d];
          rest /= b.shape()[d];
        }
        want = static_cast<std::int64_t>(full);
      }
      EXPECT_EQ(indexed[i], (std::array<std::int64_t, 4>{plain[i][0], plain[i][1], want, plain[i][3]})) << i;
    }
  });
}

// The loader's traffic computed by brute force from the definitions in loader_plan.h.
TrafficPlan brute_force_load_and_gather(const BoundLayout& b) {
  const std::size_t levels = b.level_count();
  const std::uint64_t bytes = b.element_bytes();
  // need[X][unit] = padded indices below that unit; first[X][unit] = logical elements whose replica 0 is
  // below.
  std::vector<std::map<std::uint64_t, std::set<V>>> need(levels), first(levels);
  for (const V& x : all_indices(b.padded_shape())) {
    auto locs = b.locations(x);
    for (const auto& l : locs) {
      std::uint64_t pe = b.pe_id(l.units);
      for (std::size_t lv = 0; lv < levels; ++lv) {
        need[lv][pe / b.pe_weight(lv)].insert(x);
        if (l.replica == 0 && !b.is_padding(x)) first[lv][pe / b.pe_weight(lv)].insert(x);
      }
    }
  }
  TrafficPlan p;
  p.dram_read_bytes = p.dram_write_bytes = b.logical_elements() * bytes;
  p.levels.resize(levels);
  for (std::size_t lv = 0; lv < levels; ++lv) {
    auto& t = p.levels[lv];
    std::map<std::uint64_t, std::set<V>> parent_need, parent_first;
    std::map<std::uint64_t, std::set<std::set<V>>> payloads;
    for (const auto& [unit, s] : need[lv]) {
      t.down_delivered_bytes += s.size() * bytes;
      std::uint64_t parent = unit / b.fanout(lv);
      parent_need[parent].insert(s.begin(), s.end());
      payloads[parent].insert(s);
    }
    for (const auto& [parent, s] : parent_need) {
      t.down_sent_bytes += s.size() * bytes;
      t.busiest_down_port_bytes = std::max<std::uint64_t>(t.busiest_down_port_bytes, s.size() * bytes);
      p.transfers += payloads[parent].size();
    }
    for (const auto& [unit, s] : first[lv]) {
      t.up_sent_bytes += s.size() * bytes;
      parent_first[unit / b.fanout(lv)].insert(s.begin(), s.end());
      if (!s.empty()) ++p.transfers;
    }
    t.up_delivered_bytes = t.up_sent_bytes;
    for (const auto& [parent, s] : parent_first)
      t.busiest_up_port_bytes = std::max<std::uint64_t>(t.busiest_up_port_bytes, s.size() * bytes);
  }
  return p;
}

TEST(LayoutProperties, LoaderPlanMatchesBruteForce) {
  for_random_layouts([](const BoundLayout& b, const testing::RandomCase&) {
    TrafficPlan load = plan_load(b), gather = plan_gather(b), brute = brute_force_load_and_gather(b);
    EXPECT_EQ(load.dram_read_bytes, brute.dram_read_bytes);
    EXPECT_EQ(gather.dram_write_bytes, brute.dram_write_bytes);
    EXPECT_EQ(load.transfers + gather.transfers, brute.transfers);
    for (std::size_t lv = 0; lv < b.level_count(); ++lv) {
      SCOPED_TRACE("level " + std::to_string(lv));
      const auto& e = brute.levels[lv];
      EXPECT_EQ(load.levels[lv].down_sent_bytes, e.down_sent_bytes);
      EXPECT_EQ(load.levels[lv].down_delivered_bytes, e.down_delivered_bytes);
      EXPECT_EQ(load.levels[lv].busiest_down_port_bytes, e.busiest_down_port_bytes);
      EXPECT_EQ(gather.levels[lv].up_sent_bytes, e.up_sent_bytes);
      EXPECT_EQ(gather.levels[lv].up_delivered_bytes, e.up_delivered_bytes);
      EXPECT_EQ(gather.levels[lv].busiest_up_port_bytes, e.busiest_up_port_bytes);
    }
  });
}

// Per port, from the definitions in port_traffic.h: what each parent sends down (its need) and
// receives up (the logical elements whose replica 0 is below it).
TEST(LayoutProperties, PortTrafficMatchesBruteForce) {
  for_random_layouts([](const BoundLayout& b, const testing::RandomCase&) {
    const std::size_t levels = b.level_count();
    std::vector<std::map<std::uint64_t, std::set<V>>> need(levels), first(levels);
    for (const V& x : all_indices(b.padded_shape())) {
      for (const auto& l : b.locations(x)) {
        const std::uint64_t pe = b.pe_id(l.units);
        for (std::size_t lv = 0; lv < levels; ++lv) {
          const std::uint64_t parent = pe / b.pe_weight(lv) / b.fanout(lv);
          need[lv][parent].insert(x);
          if (l.replica == 0 && !b.is_padding(x)) first[lv][parent].insert(x);
        }
      }
    }
    const PortTraffic load = load_port_traffic(b), gather = gather_port_traffic(b);
    for (std::size_t lv = 0; lv < levels; ++lv) {
      SCOPED_TRACE("level " + std::to_string(lv));
      std::map<std::uint64_t, std::uint64_t> want_down, got_down, want_up, got_up;
      for (const auto& [parent, s] : need[lv]) want_down[parent] = s.size() * b.element_bytes();
      for (const auto& [parent, s] : first[lv])
        if (!s.empty()) want_up[parent] = s.size() * b.element_bytes();
      for (const PortBytes& p : load[lv]) got_down[p.parent] = p.bytes;
      for (const PortBytes& p : gather[lv]) got_up[p.parent] = p.bytes;
      EXPECT_EQ(got_down, want_down);
      EXPECT_EQ(got_up, want_up);
    }
  });
}

TEST(LayoutProperties, ConvertToItselfMovesNothing) {
  for_random_layouts([](const BoundLayout& b, const testing::RandomCase&) {
    ConversionPlan p = plan_conversion(b, b);
    EXPECT_TRUE(p.moves_nothing());
    EXPECT_EQ(p.copies(), 0u);
    EXPECT_EQ(p.link_bytes(), 0u);
    EXPECT_EQ(p.destination_slots, b.logical_elements() * b.replicas());
  });
}

// Grouping elements that move alike is an optimization only: between every pair of a tensor's
// candidate layouts on random machines, the grouped plan equals the element-by-element one.
TEST(LayoutProperties, ConversionByClassesEqualsElementByElement) {
  unsigned pairs = 0;
  for (unsigned seed = 0; seed < 60; ++seed) {
    const testing::RandomCase c = random_case(seed);
    EnumerateOptions options;
    options.limit = 10;
    options.allow_partial = true;
    std::vector<BoundLayout> bound;
    for (const TensorLayout& t : enumerate_layouts(c.shape, c.machine, 1, options)) {
      BindResult b = bind_layout(t, c.shape, c.machine, 1);
      if (b) bound.push_back(*b.layout);
    }
    for (const BoundLayout& from : bound)
      for (const BoundLayout& to : bound) {
        SCOPED_TRACE("seed " + std::to_string(seed) + " shape " + shape_string(c.shape));
        const ConversionPlan fast = plan_conversion(from, to), slow = plan_conversion(from, to, false);
        EXPECT_EQ(fast.destination_slots, slow.destination_slots);
        EXPECT_EQ(fast.in_place, slow.in_place);
        EXPECT_EQ(fast.copies_by_lca, slow.copies_by_lca);
        EXPECT_EQ(fast.levels, slow.levels);
        ++pairs;
      }
  }
  EXPECT_GT(pairs, 500u);
}

TEST(LayoutProperties, UnitViewCountsMatchTheInverse) {
  for_random_layouts([](const BoundLayout& b, const testing::RandomCase&) {
    for (const V& u : all_units(b)) {
      UnitView v = unit_view(b, u);
      std::uint64_t elements = 0, slots = 0;
      for (std::uint64_t a = 0; a < b.cosize(b.addr_target()); ++a)
        for (std::uint64_t w = 0; w < b.words_per_address(); ++w) {
          SlotContent s = b.inverse(u, a, w);
          if (s.kind == SlotKind::Empty) continue;
          ++slots;
          elements += s.kind == SlotKind::Element;
          EXPECT_EQ(s.replica, v.replica);
        }
      EXPECT_EQ(v.used, slots > 0);
      if (v.used) {
        EXPECT_EQ(v.slots, slots);
        EXPECT_EQ(v.elements, elements);
      }
    }
  });
}

}  // namespace
}  // namespace treesim::layout
