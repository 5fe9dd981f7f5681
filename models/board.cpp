#include "models/board.h"

namespace treesim::models {

Board::Board(const sc_core::sc_module_name& name, const machine::MachineConfig& config, BoardConfig board)
    : sc_core::sc_module(name), dram_socket("dram_socket"), config_(config) {
  for (std::size_t l = 0; l < config.levels.size(); ++l)
    levels_.push_back(std::make_unique<TreeLevel>(config.levels[l].name.c_str(), config, l));
  pe_array_ = std::make_unique<PeArray>("pe_array", config, board.threads);
  sequencer_ = std::make_unique<Sequencer>("sequencer", config, board.quantum_cycles);
  for (auto& level : levels_) sequencer_->levels.bind(level->link);
  sequencer_->pes.bind(pe_array_->lanes);
  sequencer_->dram.bind(dram_socket);  // hierarchical: the board's socket is the sequencer's
}

}  // namespace treesim::models
