// The board: DRAM, the tree of units below it, and the single driver process that runs a program
// on them. Built like the TLM examples' top: children in the constructor, names follow the tree.
#pragma once

#include <systemc>

#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "models/pe.h"
#include "models/tree_node.h"
#include "sim/machine/machine_config.h"
#include "sim/topology/topology.h"

namespace treesim::models {

// One machine cycle is one SystemC time unit (1 ns); seconds are derived from the clock.
void configure_time();
sc_core::sc_time cycles_to_time(std::uint64_t cycles);
std::uint64_t time_to_cycles(const sc_core::sc_time& t);

class Board : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Board);
  Board(const sc_core::sc_module_name& name, const machine::MachineConfig& config,
        const topology::Topology& topo);
  Board(const Board&) = delete;
  Board& operator=(const Board&) = delete;

  const machine::MachineConfig& config() const { return config_; }
  const topology::Topology& topology() const { return topo_; }
  // Every PE, by global PE id.
  const std::vector<Pe*>& pes() const { return pes_; }

  // The driver's work: called at cycle 0 and then at every cycle it returns, until it returns
  // nullopt. It runs in an SC_METHOD on the caller's stack (no coroutine: cheaper, and clean under
  // AddressSanitizer, which cannot follow SystemC's thread stacks).
  using Job = std::function<std::optional<std::uint64_t>(std::uint64_t now)>;
  void set_job(Job job) { job_ = std::move(job); }
  std::uint64_t now_cycles() const;

  // Runs the simulation to the end of the job; rethrows what the job threw.
  void simulate();

 private:
  void drive();

  const machine::MachineConfig& config_;
  const topology::Topology& topo_;
  std::vector<Pe*> pes_;
  std::vector<std::unique_ptr<TreeNode>> nodes_;
  std::vector<std::unique_ptr<Pe>> own_pes_;  // only when the PE level is the root level
  Job job_;
  bool done_ = false;
  std::exception_ptr error_;
};

}  // namespace treesim::models
