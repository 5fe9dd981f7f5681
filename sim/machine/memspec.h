// A DRAM device's organisation and timing (a "memspec", as DRAMSys and DRAMPower call it) and how a
// banked DRAM model uses it: one JEDEC channel's banks, rows and timing parameters in its own clock
// cycles, and the address mapping from a DRAM address to channel, rank, bank group, bank, row and
// column. Plain aggregates: sim/machine/memspec_yaml.cpp reads them, models/banked_dram.h runs them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/error.h"

namespace treesim::machine {

// JEDEC timing parameters, in the device's command-clock cycles (tCK).
struct MemTiming {
  std::uint64_t tRCD = 0, tRP = 0, tCL = 0, tWL = 0, tRAS = 0, tRC = 0;
  std::uint64_t tCCD = 0, tCCD_L = 0;  // column to column: other bank group, same bank group
  std::uint64_t tRRD = 0, tRRD_L = 0;  // activate to activate: other bank group, same bank group
  std::uint64_t tFAW = 0;
  std::uint64_t tWTR = 0, tWTR_L = 0;  // end of write data to read: other, same bank group
  std::uint64_t tRTP = 0, tWR = 0, tBURST = 0, tREFI = 0, tRFC = 0;
  std::uint64_t tRFCpb = 0, tREFIpb = 0;  // per-bank refresh (0: the device has none given)
};

// Energy per command on one channel, picojoules.
struct MemEnergy {
  double activate = 0;  // an ACT with its PRE
  double read = 0;      // a RD burst
  double write = 0;     // a WR burst
  double refresh = 0;   // an all-bank REF
};

struct MemSpec {
  std::string name, standard, file;  // file: where it was read from ("" when inline)
  double clock_mhz = 0;              // command clock
  std::uint64_t data_bits = 0, transfers_per_clock = 0, burst_length = 0;
  std::uint64_t ranks = 1, bank_groups = 1, banks_per_group = 1, rows = 0, row_bytes = 0;
  MemTiming t;
  MemEnergy energy;

  std::uint64_t burst_bytes() const { return data_bits / 8 * burst_length; }
  std::uint64_t bursts_per_row() const { return row_bytes / burst_bytes(); }
  std::uint64_t banks() const { return ranks * bank_groups * banks_per_group; }
  std::uint64_t channel_bytes() const { return banks() * rows * row_bytes; }
  // Peak of one channel: one burst per tBURST.
  double peak_bytes_per_second() const {
    return static_cast<double>(burst_bytes()) / static_cast<double>(t.tBURST) * clock_mhz * 1e6;
  }
};

// The fields of a DRAM address above the burst offset, most significant first in a mapping.
enum class AddressField { kRow, kRank, kBankGroup, kBank, kColumn, kChannel };
const char* address_field_code(AddressField f);  // "Ro", "Ra", "Bg", "Ba", "Co", "Ch"

enum class PagePolicy { kOpen, kClosed };
// All-bank refresh closes a rank for tRFC every tREFI; per-bank refresh closes one bank after
// another for tRFCpb, one every tREFIpb, while the others keep working.
enum class RefreshMode { kAllBank, kPerBank };

struct BankedDramConfig {
  MemSpec memspec;
  std::uint64_t channels = 1;  // JEDEC channels side by side in one DRAM (each its own banks and bus)
  // Most significant first, e.g. Ro Ra Ba Co Bg Ch: every field whose count is above 1 appears once.
  std::vector<AddressField> mapping;
  bool xor_bank = false;  // bank and bank-group bits XOR the row's low bits (permutation interleaving)
  PagePolicy page_policy = PagePolicy::kOpen;
  RefreshMode refresh = RefreshMode::kAllBank;
  std::uint64_t controller_cycles = 0;  // the controller's own latency, in machine cycles, each way
};

// Parses a mapping such as "RoRaBaCoBgCh"; false (and `error`) on an unknown or repeated code.
bool parse_address_mapping(const std::string& text, std::vector<AddressField>& out, std::string& error);
std::string address_mapping_text(const std::vector<AddressField>& mapping);
// How many values a field takes in a banked DRAM (rows, ranks, ..., bursts per row, channels).
std::uint64_t address_field_values(const BankedDramConfig& banked, AddressField f);

// Every problem of a memspec (zero timings, counts that are not powers of two, a tBURST that does
// not match the burst length, tRC < tRAS + tRP), `where` relative to the memspec ("timing.tRC").
core::Errors check_memspec(const MemSpec& spec);
// Every problem of a banked DRAM's mapping and channels, `where` relative to dram.banked.
core::Errors check_banked(const BankedDramConfig& banked);

// A banked DRAM's peak in bytes per machine cycle (all its channels), and a row hit's latency in
// machine cycles (tCL + tBURST, rounded up, and the controller both ways).
double banked_peak_bytes_per_cycle(const BankedDramConfig& banked, double clock_ghz);
std::uint64_t banked_row_hit_latency(const BankedDramConfig& banked, double clock_ghz);

}  // namespace treesim::machine
