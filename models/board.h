// The board: the tree of units below it (built like the TLM examples' top: children in the
// constructor, names following the tree), the PEs' local memories in one arena, its own link to
// the level-0 units, the sequencer that issues programs, and the TLM initiator socket through which
// it reaches DRAM. The socket is bound by Simulation to the built-in Dram unless the user binds
// another TLM-2.0 loosely-timed target (one that annotates delays rather than waits: the
// sequencer is a method process).
#pragma once

#include <tlm_utils/simple_initiator_socket.h>
#include <systemc>
#include <tlm>

#include <cstdint>
#include <memory>
#include <vector>

#include "models/pe.h"
#include "models/sequencer.h"
#include "models/tree_node.h"
#include "sim/machine/machine_config.h"
#include "sim/timing/scoreboard.h"
#include "sim/topology/topology.h"

namespace treesim::models {

class Board : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Board> dram_socket;

  Board(const sc_core::sc_module_name& name, const machine::MachineConfig& config,
        const topology::Topology& topo);
  ~Board() override;
  Board(const Board&) = delete;
  Board& operator=(const Board&) = delete;

  const machine::MachineConfig& config() const { return config_; }
  const topology::Topology& topology() const { return topo_; }
  // Every PE, by global PE id.
  const std::vector<Pe*>& pes() const { return index_.pes; }
  // The links serving `level`'s units: one per parent (the board's for level 0).
  const std::vector<Link*>& links(std::size_t level) const { return index_.links[level]; }
  Sequencer& sequencer() { return *sequencer_; }
  // Maps the pages of `ranges` (LM offsets) in every PE's LM before a run writes them: one call per
  // range and PE, or one for the arena when they cover nearly all of an LM, instead of a page fault
  // per page (host_pages.h). What the LMs hold does not change.
  void map_lms(std::vector<timing::Range> ranges);

 private:
  void invalidate_dmi(sc_dt::uint64, sc_dt::uint64) { sequencer_->invalidate_dmi(); }
  const machine::MachineConfig& config_;
  const topology::Topology& topo_;
  std::uint8_t* arena_ = nullptr;  // every PE's LM at a fixed stride; zero pages until written
  std::uint64_t arena_bytes_ = 0;
  TreeIndex index_;
  Link link_;
  std::vector<std::unique_ptr<TreeNode>> nodes_;
  std::vector<std::unique_ptr<Pe>> own_pes_;  // only when the PE level is the root level
  std::unique_ptr<Sequencer> sequencer_;
};

}  // namespace treesim::models
