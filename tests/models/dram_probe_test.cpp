// `treesim dram probe`'s engine on configs/mncore2-gddr6.yaml against the closed forms of
// docs/timing.md ("The banked DRAM"): a stream reaches at least 90% of the peak and at most the
// peak less refresh; N rows of one bank in turn cost tRC per access, stretched by refresh.
#include <gtest/gtest.h>

#include "models/dram_probe.h"
#include "tests/configs.h"

namespace treesim::models {
namespace {

// Device cycles → machine cycles of mncore2-gddr6.
double machine_cycles(const machine::MachineConfig& m, double device_cycles) {
  return device_cycles * m.clock_ghz * 1000 / m.dram.banked->memspec.clock_mhz;
}

TEST(DramProbe, AStreamReachesNinetyPercentOfThePeakAndNoMoreThanRefreshLeaves) {
  const machine::MachineConfig m = testing::config("mncore2-gddr6");
  ProbeOptions o;
  o.bytes = 4 << 20;
  const ProbeResult r = probe_dram(m, o);
  const machine::MemTiming& t = m.dram.banked->memspec.t;
  EXPECT_NEAR(r.peak_bytes_per_cycle, 4 * 32e9 / 750e6, 1e-9);  // 4 channels of 32 GB/s at 750 MHz
  EXPECT_GE(r.achieved_bytes_per_cycle, 0.9 * r.peak_bytes_per_cycle);
  const double refresh_left = 1 - static_cast<double>(t.tRFC) / static_cast<double>(t.tREFI);
  EXPECT_LE(r.achieved_bytes_per_cycle, r.peak_bytes_per_cycle * refresh_left);
  ASSERT_TRUE(r.banks);
  EXPECT_GT(r.banks->row_hit_rate(), 0.95);
}

TEST(DramProbe, TwoRowsOfOneBankCostTrcPerAccessStretchedByRefresh) {
  const machine::MachineConfig m = testing::config("mncore2-gddr6");
  ProbeOptions o;
  o.pattern.kind = ProbePattern::Kind::kRows;
  o.pattern.rows = 2;
  o.access_bytes = m.dram.banked->memspec.burst_bytes();  // one burst, one bank
  o.bytes = 4096 * o.access_bytes;
  const ProbeResult r = probe_dram(m, o);
  const machine::MemTiming& t = m.dram.banked->memspec.t;
  const double per_access = static_cast<double>(r.cycles) / static_cast<double>(r.accesses);
  const double closed_form = machine_cycles(m, static_cast<double>(t.tRC)) * static_cast<double>(t.tREFI) /
                             static_cast<double>(t.tREFI - t.tRFC);
  EXPECT_NEAR(per_access, closed_form, 0.02 * closed_form);
  ASSERT_TRUE(r.banks);
  // Between refreshes (the pattern uses one channel, so its refreshes are all in the way): tRC.
  const double refreshing = machine_cycles(m, static_cast<double>(r.banks->refreshes * t.tRFC));
  const double trc = machine_cycles(m, static_cast<double>(t.tRC));
  EXPECT_NEAR((static_cast<double>(r.cycles) - refreshing) / static_cast<double>(r.accesses), trc, 0.02 * trc);
  EXPECT_EQ(r.banks->row_hits, 0u);
  EXPECT_EQ(r.banks->activates, r.accesses);
}

TEST(DramProbe, RandomAccessesMissAndFallFarBelowAStream) {
  const machine::MachineConfig m = testing::config("mncore2-gddr6");
  ProbeOptions o;
  o.pattern.kind = ProbePattern::Kind::kRandom;
  o.bytes = 1 << 20;
  const ProbeResult r = probe_dram(m, o);
  ASSERT_TRUE(r.banks);
  EXPECT_LT(r.banks->row_hit_rate(), 0.05);
  EXPECT_LT(r.achieved_bytes_per_cycle, 0.5 * r.peak_bytes_per_cycle);
  EXPECT_LE(r.latency_min, r.latency_p50);
  EXPECT_LE(r.latency_p50, r.latency_p99);
  EXPECT_LE(r.latency_p99, r.latency_max);
}

TEST(DramProbe, RowsNeedABankedModel) {
  ProbeOptions o;
  o.pattern.kind = ProbePattern::Kind::kRows;
  o.pattern.rows = 2;
  const core::Errors e = check_probe(testing::config("mncore2"), o);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].where, "--pattern");
}

TEST(DramProbe, PatternsParseAndBadOnesNameTheOption) {
  core::Error why;
  EXPECT_EQ(parse_probe_pattern("stride:4096", why)->stride, 4096u);
  EXPECT_EQ(parse_probe_pattern("rows:3", why)->rows, 3u);
  EXPECT_FALSE(parse_probe_pattern("rows:0", why));
  EXPECT_FALSE(parse_probe_pattern("stream:1", why));
  EXPECT_EQ(why.where, "--pattern");
}

}  // namespace
}  // namespace treesim::models
