#include "models/board.h"

#include <algorithm>

#include "models/host_pages.h"

namespace treesim::models {

Board::Board(const sc_core::sc_module_name& name, const machine::MachineConfig& config,
             const topology::Topology& topo)
    : sc_core::sc_module(name), dram_socket("dram_socket"), config_(config), topo_(topo) {
  const std::uint64_t pes = config.pe_count(), lm = config.lm_bytes();
  // Fresh zero pages: an LM costs memory only once it is written.
  arena_bytes_ = pes * lm;
  arena_ = allocate_pages(arena_bytes_);
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
  free_pages(arena_, arena_bytes_);
}

void Board::map_lms(std::vector<timing::Range> ranges) {
  const std::uint64_t lm = config_.lm_bytes(), page = 4096;
  if (index_.pes.empty() || lm == 0) return;
  // The ranges' pages, merged.
  for (timing::Range& r : ranges)
    r.lo = r.lo / page * page, r.hi = std::min(lm, (r.hi + page - 1) / page * page);
  std::sort(ranges.begin(), ranges.end(),
            [](const timing::Range& x, const timing::Range& y) { return x.lo < y.lo; });
  std::vector<timing::Range> pages;
  std::uint64_t covered = 0;
  for (const timing::Range& r : ranges) {
    if (r.lo >= r.hi) continue;
    if (!pages.empty() && r.lo <= pages.back().hi)
      pages.back().hi = std::max(pages.back().hi, r.hi);
    else
      pages.push_back(r);
  }
  for (const timing::Range& r : pages) covered += r.hi - r.lo;
  if (covered >= lm / 8 * 7) return populate_pages(arena_, arena_bytes_);
  for (std::uint64_t p = 0; p < index_.pes.size(); ++p)
    for (const timing::Range& r : pages) populate_pages(arena_ + p * lm + r.lo, r.hi - r.lo);
}

}  // namespace treesim::models
