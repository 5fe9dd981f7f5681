// The machine's shared resources and when each is next free. Instructions are machine-wide
// (lock-step), so a level's ports are one resource per direction: an instruction occupies it for
// the time of its busiest port. Timestamp arithmetic only, no clock.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/machine/machine_config.h"
#include "sim/timing/cost_model.h"

namespace treesim::timing {

using Resource = std::size_t;

class Resources {
 public:
  explicit Resources(const machine::MachineConfig& config);

  static constexpr Resource kDram = 0;
  static constexpr Resource kMac = 1;
  static constexpr Resource kDptDecoder = 2;
  static constexpr Resource kRequant = 3;
  static constexpr Resource kCopy = 4;
  Resource down(std::size_t level) const { return 5 + 2 * level; }
  Resource up(std::size_t level) const { return 6 + 2 * level; }

  std::size_t count() const { return next_free_.size(); }
  // "dram", "mac", "dpt_decoder", "requant", "copy", "L2B.down", "L2B.up", ...
  const std::string& name(Resource r) const { return names_.at(r); }

  std::uint64_t next_free(Resource r) const { return next_free_.at(r); }
  std::uint64_t busy_cycles(Resource r) const { return busy_.at(r); }
  // Occupies `r` for `cycles` from `start` (start must not be before next_free(r)).
  void occupy(Resource r, std::uint64_t start, std::uint64_t cycles);

 private:
  std::vector<std::string> names_;
  std::vector<std::uint64_t> next_free_;
  std::vector<std::uint64_t> busy_;
};

// What one instruction costs: the resources it holds and for how long, and its duration from
// start to completion (latencies included). The closed forms below build these.
struct Cost {
  struct Use {
    Resource resource;
    std::uint64_t cycles;
  };
  std::vector<Use> uses;
  std::uint64_t latency = 0;   // after the last use ends
  std::uint64_t duration = 0;  // alone: latency + the longest use
};

// When an instruction ran: each use claims its resource as soon as the instruction is ready and
// that resource is free (ports and units work independently, so a transfer's stages pipeline
// behind earlier transfers); the instruction completes `latency` after its last use ends. Alone,
// end = ready + the closed-form duration.
struct Scheduled {
  std::uint64_t start = 0;  // the first use's start (ready, when it uses nothing)
  std::uint64_t end = 0;
  std::vector<std::uint64_t> use_starts;
};
Scheduled schedule(const Cost& cost, std::uint64_t ready, Resources& resources);

// A stage of a transfer: a resource, the bytes through its busiest port and that port's rate.
struct ResourceStage {
  Resource resource;
  std::uint64_t bytes;
  std::uint64_t bytes_per_cycle;
};

// Cut-through transfer: duration = Σ latencies on the path + the largest stage time, a stage time
// being ceil(bytes / bytes_per_cycle); each stage's resource is held for its own stage time.
Cost transfer_cost(const std::vector<ResourceStage>& stages, std::uint64_t path_latency);

// A PE unit working on `work` items at `rate` per cycle: held ceil(work / rate) cycles, done after
// latency + ceil(work / rate).
Cost unit_cost(Resource unit, std::uint64_t work, std::uint64_t rate, std::uint64_t latency);

}  // namespace treesim::timing
