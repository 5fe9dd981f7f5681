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

Board::~Board() {
  // SystemC's module registry finds a module by scanning its list from the front and fills the hole
  // with the list's last entry, so tearing down 10,000 modules in tree order costs n²/2 compares
  // (a third of a timing-only run on the board). Destroying the first PEs leaves holes near the
  // front, which take in the modules SystemC built after ours (its method invoker, once a run has
  // started) and then our last-built ones; destroying the rest last-built first then finds every
  // module in one of those holes. Eight holes leave room for that many trailing foreign modules.
  sequencer_.reset();
  std::vector<std::unique_ptr<Pe>*> first;
  first_pes(nodes_, own_pes_, 8, first);
  for (std::unique_ptr<Pe>* pe : first) pe->reset();
  destroy_children(nodes_, own_pes_);
  std::free(arena_);
}

}  // namespace treesim::models
