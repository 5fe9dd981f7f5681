// The board: the modules of one machine, built like the TLM examples' top (children in the
// constructor, bound in its body). One TreeLevel per level of the machine file, the PeArray, and
// the Sequencer, whose ports are bound to the levels' and the array's exports and whose DRAM
// initiator sockets (one per DRAM channel) are bound to the board's own: the board's sockets are
// what DRAM targets bind to (Simulation binds the built-in Dram, one per channel, unless the caller
// binds other TLM-2.0 LT targets).
#pragma once

#include <systemc>
#include <tlm>

#include <cstdint>
#include <memory>
#include <vector>

#include "models/pe_array.h"
#include "models/sequencer.h"
#include "models/tree_level.h"
#include "sim/machine/machine_config.h"

namespace treesim::models {

// How a board is built besides its machine file.
struct BoardConfig {
  std::uint64_t quantum_cycles = 1000;  // how far the sequencer may run ahead of SystemC time
  unsigned threads = 1;                 // host threads for the PE array's functional work
};

class Board : public sc_core::sc_module {
 public:
  // One per DRAM channel (machine.dram_channels()): "dram_socket" alone, or dram_socket_0, _1, ...
  sc_core::sc_vector<tlm::tlm_initiator_socket<>> dram_sockets;
  tlm::tlm_initiator_socket<>& dram_socket;  // channel 0's: the only one of a one-DRAM machine

  Board(const sc_core::sc_module_name& name, const machine::MachineConfig& config, BoardConfig board = {});
  Board(const Board&) = delete;
  Board& operator=(const Board&) = delete;

  const machine::MachineConfig& config() const { return config_; }
  Sequencer& sequencer() { return *sequencer_; }
  PeArray& pe_array() { return *pe_array_; }
  const PeArray& pe_array() const { return *pe_array_; }
  TreeLevel& level(std::size_t l) { return *levels_.at(l); }
  const TreeLevel& level(std::size_t l) const { return *levels_.at(l); }

 private:
  const machine::MachineConfig& config_;
  std::vector<std::unique_ptr<TreeLevel>> levels_;
  std::unique_ptr<PeArray> pe_array_;
  std::unique_ptr<Sequencer> sequencer_;
};

}  // namespace treesim::models
