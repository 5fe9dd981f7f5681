// The banked DRAM's timing: the state of every bank of every JEDEC channel (open row, when it may
// next activate, read or precharge) and of each rank (the last activates, for tRRD and tFAW, and its
// refresh), served in the order the accesses arrive (an in-order controller that still overlaps
// activates in other banks with column accesses). Pure timestamp arithmetic in the device's clock,
// no SystemC: `Dram` calls it from b_transport and `treesim dram probe` through that socket.
//
// A burst to bank b, arriving at t:
//   row hit       column command at max(t, tRCD after its ACT, tCCD after the last column command
//                 (tCCD_L in the same bank group), write-to-read tWTR, the data bus)
//   closed bank   ACT at max(t, tRP after its PRE, tRC after its last ACT, tRRD after any ACT
//                 (tRRD_L in the same group), tFAW after the fourth last ACT), then as a hit
//   other row     PRE at max(t, tRAS after its ACT, tRTP after a read, tWR after write data), then
//                 as a closed bank
// Data moves tCL (reads) or tWL (writes) after the column command, for tBURST. Every tREFI a rank
// closes its banks and refreshes for tRFC (all-bank refresh), or every tREFIpb one bank after
// another closes for tRFCpb (per-bank refresh: each bank once per round of tREFIpb × banks, a
// closed bank first, the one used last). A closed-page policy precharges after every access.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "sim/machine/memspec.h"
#include "sim/report/run_stats.h"

namespace treesim::models {

class DramBanks {
 public:
  // `clock_ghz`: the machine's clock, in whose cycles accesses arrive and complete.
  DramBanks(const machine::BankedDramConfig& config, double clock_ghz);

  struct Served {
    std::uint64_t first_data = 0;  // machine cycle the first byte moved
    std::uint64_t done = 0;        // machine cycle the last byte moved, the controller's latency included
  };
  // An access of `bytes` at `address` arriving at machine cycle `arrival`, in bursts.
  Served access(std::uint64_t address, std::uint64_t bytes, bool write, std::uint64_t arrival);
  // Counters restart; the banks keep their state (rows stay open across programs).
  void reset_counters() {
    counters_ = {};
    bus_cycles_ = 0;
  }
  const report::DramBankStats& counters() const { return counters_; }
  // Device cycles the data buses moved data since the counters restarted (all channels).
  std::uint64_t bus_cycles() const { return bus_cycles_; }

  // Device cycles ↔ machine cycles (both rounded up).
  std::uint64_t to_device(std::uint64_t machine_cycle) const;
  std::uint64_t to_machine(std::uint64_t device_cycle) const;

  // Where a burst lives (exposed for tests and the probe's patterns).
  struct Place {
    std::uint64_t channel = 0, rank = 0, group = 0, bank = 0, row = 0, column = 0;
  };
  Place decode(std::uint64_t address) const;
  // The address of a place's first byte (the inverse of decode, before the XOR option).
  std::uint64_t encode(const Place& p) const;

 private:
  struct Bank {
    bool open = false;
    std::uint64_t row = 0;
    std::uint64_t next_act = 0, next_col = 0, next_pre = 0;
    std::uint64_t last_use = 0;  // its last column command
  };
  struct Rank {
    std::array<std::uint64_t, 4> acts{};  // the last four ACTs, oldest first (tFAW)
    std::uint64_t act_count = 0, last_act = 0, last_act_group = 0;
    std::uint64_t next_refresh = 0;
    // Per-bank refresh: the banks refreshed in this round (each once per round), and where to look next.
    std::vector<bool> refreshed;
    std::uint64_t refreshed_count = 0, next_bank = 0;
  };
  struct Channel {
    std::vector<Bank> banks;  // rank-major, then group, then bank
    std::vector<Rank> ranks;
    std::uint64_t last_col = 0, last_col_group = UINT64_MAX, bus_free = 0;
    std::uint64_t last_act_issue = 0;
    std::uint64_t write_end = 0, write_group = UINT64_MAX, read_end = 0;
    bool started = false;
  };
  // One burst; returns the device cycle its data ends.
  std::uint64_t burst(const Place& p, bool write, std::uint64_t t);
  void refresh_until(Channel& c, std::uint64_t rank, std::uint64_t t);
  std::uint64_t activate(Channel& c, Rank& r, Bank& b, const Place& p, std::uint64_t at);

  machine::BankedDramConfig config_;
  const machine::MemTiming t_;
  double device_per_machine_ = 1;  // device cycles per machine cycle
  std::uint64_t burst_bytes_ = 0;
  std::vector<std::pair<machine::AddressField, std::uint64_t>> fields_;  // least significant first
  std::vector<Channel> channels_;
  report::DramBankStats counters_;
  std::uint64_t bus_cycles_ = 0;
};

}  // namespace treesim::models
