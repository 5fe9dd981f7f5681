#include "models/host/dead_requant.h"

#include <map>
#include <variant>

#include "sim/layout/slots.h"

namespace treesim::host {
namespace {

enum class Effect { kNone, kRead, kOverwrite, kUnknown };

// What instruction `prep` does to LM bytes [lo, hi) of the PEs it applies to: reads them, overwrites
// all of them without reading, leaves them alone, or something this analysis does not follow.
Effect effect_on(const program::PreparedInstr& prep, std::uint64_t lo, std::uint64_t hi) {
  for (const timing::Range& r : prep.reads)
    if (r.space == program::kLmSpace && r.lo < hi && lo < r.hi) return Effect::kRead;
  Effect e = Effect::kNone;
  for (const timing::Range& w : prep.writes) {
    if (w.space != program::kLmSpace || !(w.lo < hi && lo < w.hi)) continue;
    if (w.lo <= lo && hi <= w.hi) return Effect::kOverwrite;
    e = Effect::kUnknown;  // a partial overwrite: the rest of the bytes stay to be read
  }
  return e;
}

// The PEs a store reads: those of its layout's replica 0.
std::vector<bool> store_pes(const program::Transfer& t, std::uint64_t pes) {
  std::vector<bool> out(pes, false);
  layout::for_each_run(t.bound, [&](std::uint64_t pe, std::uint64_t, std::int64_t, std::uint64_t) {
    if (pe < pes) out[pe] = true;
  });
  return out;
}

}  // namespace

std::vector<std::vector<bool>> dead_requant_outputs(const program::Program& program,
                                                    const program::CheckedProgram& checked,
                                                    std::uint64_t pes) {
  std::vector<std::vector<bool>> dead(program.instrs.size());
  std::map<std::size_t, std::vector<bool>> stores;  // store instruction → the PEs it reads
  for (std::size_t i = 0; i < program.instrs.size(); ++i) {
    const auto* rq = std::get_if<program::Requant>(&program.instrs[i]);
    if (!rq || rq->rows * rq->cols == 0) continue;
    const std::uint64_t lo = rq->dst, hi = rq->dst + rq->rows * rq->cols;
    std::vector<bool> live(pes, false), decided(pes, false);
    std::uint64_t open = pes;  // PEs not yet decided
    auto decide_all = [&](bool is_live) {
      for (std::uint64_t p = 0; p < pes; ++p)
        if (!decided[p]) decided[p] = true, live[p] = is_live;
      open = 0;
    };
    for (std::size_t j = i + 1; j < program.instrs.size() && open > 0; ++j) {
      const program::PreparedInstr& prep = checked.instrs[j];
      const Effect e = effect_on(prep, lo, hi);
      if (e == Effect::kNone) continue;
      if (std::holds_alternative<program::Store>(program.instrs[j]) && e == Effect::kRead && prep.transfer) {
        auto it = stores.find(j);
        if (it == stores.end()) it = stores.emplace(j, store_pes(*prep.transfer, pes)).first;
        for (std::uint64_t p = 0; p < pes; ++p)
          if (it->second[p] && !decided[p]) decided[p] = live[p] = true, --open;
        continue;
      }
      // Lock-step compute instructions act on every PE alike; loads and collectives are followed
      // only when they leave the bytes alone.
      const bool every_pe = !prep.transfer && !program::is_collective(program.instrs[j]);
      decide_all(!(every_pe && e == Effect::kOverwrite));
    }
    decide_all(false);  // LMs are not read after the run
    std::vector<bool> out(pes);
    bool any = false;
    for (std::uint64_t p = 0; p < pes; ++p) {
      out[p] = !live[p];
      any = any || out[p];
    }
    if (any) dead[i] = std::move(out);
  }
  return dead;
}

}  // namespace treesim::host
