// Every problem of a machine configuration, however it was built (YAML reader or code): rates and
// fan-outs that must be positive, names that must be unique and not reserved, and the limits that
// keep one machine within what a host can simulate. The limits are checked with checked arithmetic
// before anything is allocated, so a hostile configuration is refused at once with a named field.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/error.h"
#include "sim/machine/machine_config.h"

namespace treesim::machine {

// Documented limits (README, "Limits"). A config that passes validate() cannot overflow 64 bits in
// units_at(), pe_count() or the total memory.
struct MachineLimits {
  static constexpr std::size_t kMaxLevels = 64;
  static constexpr std::uint64_t kMaxPes = std::uint64_t{1} << 20;           // 1,048,576 PEs
  static constexpr std::uint64_t kMaxUnits = std::uint64_t{1} << 21;         // units of all levels
  static constexpr std::uint64_t kMaxTotalMemory = std::uint64_t{64} << 30;  // 64 GiB, all levels
  static constexpr std::uint64_t kMaxRate = std::uint64_t{1} << 32;          // per cycle, any unit
  static constexpr std::uint64_t kMaxLatency = std::uint64_t{1} << 32;       // cycles, any unit
  static constexpr std::uint64_t kMaxWordsPerAddress = 1024;
  static constexpr std::size_t kMaxNameLength = 256;
  static constexpr double kMaxClockGhz = 1000;
  static constexpr std::uint64_t kMaxQuantum = std::uint64_t{1} << 40;  // cycles (sc_time stays in range)
};

// Every problem, in field order; empty when the configuration is usable. `where` is a field path
// such as "levels[2].fanout", "pe.mac.int8_macs_per_cycle" or "dram.bytes_per_cycle".
std::vector<core::Error> validate(const MachineConfig& config);

}  // namespace treesim::machine
