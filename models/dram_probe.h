// Drives one channel of a machine's DRAM model (the same `Dram` target a simulation binds) with a
// synthetic access pattern through its TLM socket, as DRAMSys's traffic generators drive a memspec:
// how a user checks a DRAM model's bandwidth, row-buffer behaviour and latency. The initiator keeps
// a fixed number of accesses in flight (a closed loop): access i arrives when access i − outstanding
// has completed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/error.h"
#include "sim/machine/machine_config.h"
#include "sim/report/run_stats.h"

namespace treesim::models {

struct ProbePattern {
  enum class Kind { kStream, kRandom, kStride, kRows } kind = Kind::kStream;
  std::uint64_t stride = 0;  // kStride: bytes between accesses
  std::uint64_t rows = 0;    // kRows: rows of one bank, visited in turn
};
// "stream", "random", "stride:BYTES", "rows:N"; an error names what was expected.
std::optional<ProbePattern> parse_probe_pattern(const std::string& text, core::Error& error);
std::string probe_pattern_name(const ProbePattern& p);

struct ProbeOptions {
  ProbePattern pattern;
  std::uint64_t bytes = 1 << 20;    // in all
  std::uint64_t access_bytes = 64;  // per access
  std::uint64_t outstanding = 256;  // accesses in flight (enough to cover a row miss at full rate)
  bool write = false;
  std::uint64_t seed = 1;  // kRandom
};

struct ProbeResult {
  std::uint64_t accesses = 0, bytes = 0;
  std::uint64_t cycles = 0;  // machine cycles from the first arrival to the last completion
  double peak_bytes_per_cycle = 0, achieved_bytes_per_cycle = 0;
  std::optional<report::DramBankStats> banks;  // the banked model's counters
  std::uint64_t latency_min = 0, latency_p50 = 0, latency_p90 = 0, latency_p99 = 0, latency_max = 0;
};

// Checks the options against the machine (capacity, a rows pattern needs the banked model); the
// errors name the option.
core::Errors check_probe(const machine::MachineConfig& machine, const ProbeOptions& options);
// Elaborates one Dram target and an initiator, and runs the pattern (once per process: SystemC).
ProbeResult probe_dram(const machine::MachineConfig& machine, const ProbeOptions& options);

}  // namespace treesim::models
