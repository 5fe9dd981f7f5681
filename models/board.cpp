#include "models/board.h"

#include <cstdlib>
#include <new>

namespace treesim::models {

Board::Board(const sc_core::sc_module_name& name, const machine::MachineConfig& config,
             const topology::Topology& topo)
    : sc_core::sc_module(name), dram_socket("dram_socket"), config_(config), topo_(topo) {
  const std::uint64_t pes = config.pe_count(), lm = config.lm_bytes();
  // calloc maps fresh zero pages for large sizes: an LM costs memory only once it is written.
  arena_ = static_cast<std::uint8_t*>(std::calloc(pes == 0 ? 1 : pes, lm == 0 ? 1 : lm));
  if (!arena_) throw std::bad_alloc();
  index_.lm_arena = arena_;
  index_.pes.assign(pes, nullptr);
  index_.links.resize(config.levels.size());
  for (std::size_t l = 0; l < config.levels.size(); ++l)
    index_.links[l].assign(l == 0 ? 1 : config.units_at(l - 1), nullptr);
  index_.links[0][0] = &link_;
  build_children(config, topo, topo.board(), nodes_, own_pes_, index_);
  sequencer_ = std::make_unique<Sequencer>("sequencer", *this);
  dram_socket.register_invalidate_direct_mem_ptr(this, &Board::invalidate_dmi);
}

Board::~Board() { std::free(arena_); }

}  // namespace treesim::models
