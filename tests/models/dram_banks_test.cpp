// The banked DRAM's timing (models/dram_banks.h) against its rules, on a small device whose clock
// equals the machine's (1 GHz), so device and machine cycles are the same numbers:
// tRCD 10, tRP 10, tCL 10, tWL 5, tRAS 20, tRC 30, tCCD 4, tRRD 4, tFAW 16, tBURST 4, tREFI 4000, tRFC 200.
#include <gtest/gtest.h>

#include "models/dram_banks.h"

namespace treesim::models {
namespace {

using machine::AddressField;

machine::BankedDramConfig device() {
  machine::BankedDramConfig b;
  machine::MemSpec& m = b.memspec;
  m.name = "t";
  m.clock_mhz = 1000;
  m.data_bits = 16, m.transfers_per_clock = 2, m.burst_length = 8;  // 16-byte bursts
  m.bank_groups = 2, m.banks_per_group = 2, m.rows = 1024, m.row_bytes = 1024;
  machine::MemTiming& t = m.t;
  t.tRCD = 10, t.tRP = 10, t.tCL = 10, t.tWL = 5, t.tRAS = 20, t.tRC = 30;
  t.tCCD = t.tCCD_L = 4, t.tRRD = t.tRRD_L = 4, t.tFAW = 16, t.tWTR = t.tWTR_L = 4;
  t.tRTP = 4, t.tWR = 10, t.tBURST = 4, t.tREFI = 4000, t.tRFC = 200;
  b.mapping = {AddressField::kRow, AddressField::kBank, AddressField::kBankGroup, AddressField::kColumn};
  return b;
}

// The address of row `row`, column `column` of bank 0 in bank group 0.
std::uint64_t address_of(const DramBanks& d, std::uint64_t row, std::uint64_t column) {
  DramBanks::Place p;
  p.row = row, p.column = column;
  return d.encode(p);
}

TEST(DramBanks, AClosedBankActivatesThenReadsTrcdAndTclLater) {
  DramBanks d(device(), 1.0);
  const DramBanks::Served s = d.access(address_of(d, 0, 0), 16, false, 0);
  EXPECT_EQ(s.first_data, 20u);  // ACT at 0, RD at tRCD, data at + tCL
  EXPECT_EQ(s.done, 24u);        // for tBURST
  EXPECT_EQ(d.counters().row_misses, 1u);
  EXPECT_EQ(d.counters().activates, 1u);
}

TEST(DramBanks, ARowHitFollowsTheLastReadByTccd) {
  DramBanks d(device(), 1.0);
  d.access(address_of(d, 0, 0), 16, false, 0);
  const DramBanks::Served s = d.access(address_of(d, 0, 1), 16, false, 0);
  EXPECT_EQ(s.done, 28u);  // RD at 10 + tCCD, data 24..28
  EXPECT_EQ(d.counters().row_hits, 1u);
}

TEST(DramBanks, AlternatingRowsOfOneBankCostTrcEach) {
  DramBanks d(device(), 1.0);
  std::uint64_t done = 0;
  for (std::uint64_t i = 0; i < 10; ++i) done = d.access(address_of(d, i % 2, 0), 16, false, 0).done;
  // ACT i at i·tRC, then tRCD + tCL + tBURST.
  EXPECT_EQ(done, 9 * 30 + 10 + 10 + 4u);
  EXPECT_EQ(d.counters().row_conflicts, 9u);
  EXPECT_EQ(d.counters().activates, 10u);
}

TEST(DramBanks, ARefreshDueBeforeAnAccessClosesTheRankForTrfc) {
  DramBanks d(device(), 1.0);
  d.access(address_of(d, 0, 0), 16, false, 0);  // leaves row 0 open
  const DramBanks::Served s = d.access(address_of(d, 0, 1), 16, false, 4000);
  // PRE at 4000 (the open row), REF at + tRP for tRFC, then ACT, RD and data again.
  EXPECT_EQ(s.done, 4000 + 10 + 200 + 10 + 10 + 4u);
  EXPECT_EQ(d.counters().refreshes, 1u);
  EXPECT_EQ(d.counters().row_misses, 2u);  // the refresh closed the row
}

TEST(DramBanks, PerBankRefreshClosesOneBankAndLeavesTheOthers) {
  machine::BankedDramConfig b = device();
  b.memspec.t.tRFCpb = 50, b.memspec.t.tREFIpb = 1000;
  b.refresh = machine::RefreshMode::kPerBank;
  DramBanks d(b, 1.0);
  DramBanks::Place other;
  other.bank = 1;
  d.access(address_of(d, 0, 0), 16, false, 0);  // bank 0 open
  d.access(d.encode(other), 16, false, 0);      // bank 1 open
  const DramBanks::Served s = d.access(address_of(d, 0, 1), 16, false, 1000);
  // The refresh at 1000 takes a closed bank (2 or 3), not bank 0: a row hit.
  EXPECT_EQ(s.done, 1000 + 10 + 4u);
  EXPECT_EQ(d.counters().refreshes, 1u);
  EXPECT_EQ(d.counters().row_hits, 1u);
}

TEST(DramBanks, AClosedPagePolicyMissesEveryTime) {
  machine::BankedDramConfig b = device();
  b.page_policy = machine::PagePolicy::kClosed;
  DramBanks d(b, 1.0);
  for (std::uint64_t i = 0; i < 4; ++i) d.access(address_of(d, 0, i), 16, false, 0);
  EXPECT_EQ(d.counters().row_hits, 0u);
  EXPECT_EQ(d.counters().row_misses, 4u);
  EXPECT_EQ(d.counters().precharges, 4u);
}

TEST(DramBanks, AnAccessIsCutIntoBurstsOverTheMapping) {
  DramBanks d(device(), 1.0);
  d.access(0, 64, true, 0);  // 4 bursts: columns 0..3 of one row
  EXPECT_EQ(d.counters().writes, 4u);
  EXPECT_EQ(d.counters().row_hits, 3u);
  EXPECT_EQ(d.bus_cycles(), 16u);
}

TEST(DramBanks, DecodeUndoesEncodeWithTheXorOption) {
  machine::BankedDramConfig b = device();
  b.xor_bank = true;
  DramBanks d(b, 1.0);
  for (std::uint64_t row : {0u, 1u, 2u, 3u, 1023u}) {
    DramBanks::Place p;
    p.row = row, p.group = 1, p.bank = 0, p.column = 5;
    const DramBanks::Place q = d.decode(d.encode(p));
    EXPECT_EQ(q.row, p.row);
    EXPECT_EQ(q.group, p.group);
    EXPECT_EQ(q.bank, p.bank);
    EXPECT_EQ(q.column, p.column);
  }
}

TEST(DramBanks, DeviceCyclesBecomeMachineCyclesRoundedUp) {
  DramBanks d(device(), 0.75);  // 1000 MHz device, 750 MHz machine
  EXPECT_EQ(d.to_machine(4), 3u);
  EXPECT_EQ(d.to_machine(5), 4u);
  EXPECT_EQ(d.to_device(3), 4u);
}

}  // namespace
}  // namespace treesim::models
