// One level of the tree: the links between the level's units and their parents. Each parent has
// one down port and one up port towards its children, shared by all of them; the units of a level
// are identical, so the ports are lanes of this one module (one per parent). It holds the level's
// rate, latency and reduce flag from the machine file and serves stage(): the time a transfer
// spends in the ports it uses, each port held for its own bytes by the cost model's closed form.
// The sequencer reaches it through its `link` export.
#pragma once

#include <systemc>

#include <cstdint>
#include <vector>

#include "models/lanes.h"
#include "sim/layout/port_traffic.h"
#include "sim/machine/machine_config.h"
#include "sim/timing/cost_model.h"

namespace treesim::models {

// When a stage of a transfer held its ports: all start together at `start` (when the last of them
// is free, not before the transfer is ready), and the stage ends when the busiest is done; `busy`
// is that port's cycles (0: the stage used no port).
struct StageTime {
  std::uint64_t start = 0, end = 0, busy = 0;
};

class TreeLevelIf : public virtual sc_core::sc_interface {
 public:
  // The ports of `ports` (parent, bytes) in direction `d`.
  virtual StageTime stage(timing::Direction d, const std::vector<layout::PortBytes>& ports,
                          std::uint64_t ready) = 0;
  // Every parent's port carrying `bytes` (a collective: the subtrees work alike). O(1).
  virtual StageTime stage_all(timing::Direction d, std::uint64_t bytes, std::uint64_t ready) = 0;
  virtual std::uint64_t latency_cycles() const = 0;
};

class TreeLevel : public sc_core::sc_module, public TreeLevelIf {
 public:
  sc_core::sc_export<TreeLevelIf> link;

  TreeLevel(const sc_core::sc_module_name& name, const machine::MachineConfig& machine, std::size_t level);
  TreeLevel(const TreeLevel&) = delete;
  TreeLevel& operator=(const TreeLevel&) = delete;

  StageTime stage(timing::Direction d, const std::vector<layout::PortBytes>& ports,
                  std::uint64_t ready) override;
  StageTime stage_all(timing::Direction d, std::uint64_t bytes, std::uint64_t ready) override;
  std::uint64_t latency_cycles() const override { return latency_; }

  std::size_t level() const { return level_; }
  std::uint64_t parents() const { return parents_; }
  bool reduces() const { return reduce_; }
  std::uint64_t rate(timing::Direction d) const {
    return d == timing::Direction::kDown ? down_rate_ : up_rate_;
  }
  const Lanes& ports(timing::Direction d) const { return d == timing::Direction::kDown ? down_ : up_; }

  // A new run from cycle `origin`; with a log, the ports are traced in their parents (the units of
  // the level above from `first_parent`, the board for level 0).
  void start_run(std::uint64_t origin, trace::TraceLog* log, topology::Unit first_parent);
  void detach_log() { down_.detach_log(), up_.detach_log(); }

 private:
  Lanes& lanes(timing::Direction d) { return d == timing::Direction::kDown ? down_ : up_; }
  const timing::CostModel cost_;
  const std::size_t level_;
  const std::uint64_t parents_;
  const std::uint64_t down_rate_, up_rate_, latency_;
  const bool reduce_;
  Lanes down_, up_;
};

}  // namespace treesim::models
