#include "models/board.h"

#include <string>

#include "models/channel_names.h"

namespace treesim::models {

Board::Board(const sc_core::sc_module_name& name, const machine::MachineConfig& config, BoardConfig board)
    : sc_core::sc_module(name),
      dram_sockets("dram_sockets"),
      dram_socket((
          dram_sockets.init(config.dram_channels(),
                            ChannelNamed<tlm::tlm_initiator_socket<>>{"dram_socket", config.dram_channels()}),
          dram_sockets[0])),
      config_(config) {
  for (std::size_t l = 0; l < config.levels.size(); ++l)
    levels_.push_back(std::make_unique<TreeLevel>(config.levels[l].name.c_str(), config, l));
  pe_array_ = std::make_unique<PeArray>("pe_array", config, board.threads);
  sequencer_ = std::make_unique<Sequencer>("sequencer", config, board.quantum_cycles);
  for (auto& level : levels_) sequencer_->levels.bind(level->link);
  sequencer_->pes.bind(pe_array_->lanes);
  // Hierarchical: the board's sockets are the sequencer's.
  for (std::size_t c = 0; c < dram_sockets.size(); ++c) sequencer_->dram[c].bind(dram_sockets[c]);
}

}  // namespace treesim::models
