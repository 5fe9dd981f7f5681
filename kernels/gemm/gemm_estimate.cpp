// The default planner's analytic estimate of a qgemm plan, and a cheap lower bound of it that the
// search prunes by.
#include <algorithm>
#include <variant>

#include "kernels/gemm/gemm.h"
#include "kernels/gemm/gemm_estimate.h"
#include "sim/layout/bound_layout.h"
#include "sim/layout/loader_plan.h"
#include "sim/layout/parse.h"
#include "sim/program/window_convert.h"
#include "sim/timing/cost_model.h"

namespace treesim::kernels {
namespace {

using timing::ceil_div;

// A tile's layout bound to its block, or why it does not bind.
using Bound = std::variant<layout::BoundLayout, layout::Diagnostic>;
Bound bound(const layout::TensorLayout& l, const std::vector<std::uint64_t>& shape, std::size_t element_bytes,
            const machine::MachineConfig& m) {
  layout::BindResult r = layout::bind_layout(l, shape, m, element_bytes);
  if (!r) return r.validation.errors.front();
  return *std::move(r.layout);
}

// Cycles each resource is busy per transfer of a tile (the cost model's stages), added into
// `totals` (index: timing::Resource::index).
void add_transfer(const timing::TransferTime& t, double times, std::vector<double>& totals) {
  for (const timing::Stage& s : t.stages) totals[s.resource.index()] += times * static_cast<double>(s.cycles);
}

// The last step's MACs: `pieces` MACs of `rows` tile rows each (its tail pieces), or one of the last
// pass's rows where it runs whole.
struct LastStep {
  std::uint64_t rows = 0;
  double pieces = 1;
};
LastStep last_step(const QgemmProblem& prob, const QgemmPlan& p) {
  const std::uint64_t rows = pass_tile_rows(p, last_block_rows(prob, p)), tail = tail_pieces(p);
  if (tail == 1) return {rows, 1};
  const std::uint64_t piece = p.tm / tail;
  return {piece, static_cast<double>(ceil_div(rows, piece))};
}

// The last step's MACs (`mac_piece` each) and its store (`store` busy) after them: piece r's store
// starts after r + 1 pieces' MACs, and the stores of disjoint pieces queue only for their resources.
double macs_then_store(double mac_piece, double pieces, double store) {
  return std::max(mac_piece + store, pieces * mac_piece + store / pieces);
}

// An estimate of the program's cycles under the schedule build_program emits:
// - a step's transfers are its A and B loads and, after the first pass, its share of the previous
//   pass's store (its pieces are spread over the steps). With b buffers, step s+b−1's loads start
//   when MAC s−1 ends and must land before MAC s+b−1 starts, so in a steady state of period P they
//   have b·P − MAC for their busiest stage plus the path latency: P is the largest of the MAC, the
//   busiest stage and (MAC + busiest stage + latency) / b;
// - at each pass boundary the next pass's first MAC waits for the requant to read the accumulator
//   (where K is split, passes alternate between two accumulators and nothing waits);
// - the run is at least every resource's total (loads, stores, reduces, vector loads);
// - fill (the first step's loads) and drain (the last pass's reduce, requant and whole store) do
//   not overlap the steps; a resource's total includes them, so the run is at least that total
//   plus a path latency at each end and the last requant.
}  // namespace

double estimate_with_a_in_lm(const QgemmProblem& prob, const QgemmPlan& p, const LmTensor& a,
                             const program::Window& window, const std::vector<std::uint64_t>& tensor,
                             const machine::MachineConfig& m) {
  const std::uint64_t bm = std::min(prob.m, p.pm * p.tm), bk = std::min(prob.k, p.pk * p.kt);
  const layout::BoundLayout tile = layout::bind_or_throw(tile_layout_a(p, m, bm, bk), {bm, bk}, m, 1);
  const layout::BoundLayout from = layout::bind_or_throw(a.layout, a.shape, m, 1);
  const timing::TransferTime t =
      timing::CostModel(m).conversion(program::window_conversion(window, tensor, {0, 0}, from, tile), 1);
  return estimate_cycles(prob, p, m, nullptr, &t);
}

static std::variant<double, layout::Diagnostic> estimate_or_error(const QgemmProblem& prob,
                                                                  const QgemmPlan& p,
                                                                  const machine::MachineConfig& m,
                                                                  const timing::TransferTime* before,
                                                                  const timing::TransferTime* a_load) {
  const timing::CostModel cost(m);
  const double passes = static_cast<double>(p.m_passes * p.n_passes * prob.groups);
  const std::size_t resources = timing::Resource::count(m.levels.size());
  std::vector<double> totals(resources, 0.0), step(resources, 0.0);
  const std::uint64_t bm = std::min(prob.m, p.pm * p.tm), bn = std::min(prob.n, p.pn * p.tn);
  const std::uint64_t bk = std::min(prob.k, p.pk * p.kt);
  // Resident A (a network's activation in the LMs) is read in place: no A loads.
  timing::TransferTime load_a;
  if (a_load) {
    load_a = *a_load;
  } else {
    Bound a = bound(tile_layout_a(p, m, bm, bk), {bm, bk}, 1, m);
    if (auto* d = std::get_if<layout::Diagnostic>(&a)) return *d;
    load_a = cost.load(layout::plan_load(std::get<layout::BoundLayout>(a)));
  }
  std::vector<double> step_a(resources, 0.0), step_b(resources, 0.0);  // a step's A and B transfers
  if (!p.a_resident) add_transfer(load_a, 1, step_a);
  const std::uint64_t t = prob.w_trits_per_byte;
  QgemmPlan packed = p;  // packed W: kt/t rows of bytes per unit
  if (t > 0) packed.kt = p.kt / t;
  const std::uint64_t b_rows = t > 0 ? ceil_div(bk, t) : bk;
  Bound b = bound(tile_layout_b(packed, m, b_rows, bn), {b_rows, bn}, 1, m);
  if (auto* d = std::get_if<layout::Diagnostic>(&b)) return *d;
  const timing::TransferTime load_b = cost.load(layout::plan_load(std::get<layout::BoundLayout>(b)));
  add_transfer(load_b, 1, step_b);
  for (std::size_t r = 0; r < resources; ++r) step[r] = step_a[r] + step_b[r];
  std::vector<double> first = step;  // the fill: the first step's loads after `before`
  if (before) add_transfer(*before, 1, first);
  const double load_step = *std::max_element(first.begin(), first.end());
  Bound c = bound(tile_layout_c(p, m, bm, bn), {bm, bn}, prob.out_bytes(), m);
  if (auto* d = std::get_if<layout::Diagnostic>(&c)) return *d;
  const timing::TransferTime store = cost.store(layout::plan_gather(std::get<layout::BoundLayout>(c)));
  // A stationary operand is loaded by the first pass of each block that shares it.
  const double a_passes = static_cast<double>(a_loading_passes(prob, p));
  const double b_passes = static_cast<double>(b_loading_passes(prob, p));
  const double per_pass = static_cast<double>(p.steps);
  for (std::size_t r = 0; r < resources; ++r)
    totals[r] = per_pass * (a_passes * step_a[r] + b_passes * step_b[r]);
  if (before) add_transfer(*before, 1, totals);
  const bool stores = !p.c_resident;  // resident C stays in the LMs
  if (stores) add_transfer(store, passes, totals);
  const double pieces = static_cast<double>(std::min(p.row_pieces, p.steps));
  const std::uint64_t vectors = (prob.has_bias ? 1 : 0) + (prob.per_channel() ? 2 : 0);
  if (vectors > 0) {
    Bound v = bound(tile_layout_vector(p, m, bn), {bn}, 4, m);
    if (auto* d = std::get_if<layout::Diagnostic>(&v)) return *d;
    add_transfer(cost.load(layout::plan_load(std::get<layout::BoundLayout>(v))),
                 static_cast<double>(vectors * p.n_passes * prob.groups), totals);
  }
  const double requant =
      prob.int32_out ? 0 : static_cast<double>(cost.unit(timing::Unit::kRequant, p.tm * p.tn).duration());
  double reduce = 0;
  if (p.pk > 1) {
    const int level = p.reduce_level == "board" ? -1 : static_cast<int>(*m.level_index(p.reduce_level));
    const timing::TransferTime t = cost.collective(timing::Collective::kReduce, level, p.tm * p.tn * 4);
    add_transfer(t, passes, totals);
    reduce = static_cast<double>(t.duration());
  }
  // Every transfer crosses DRAM and every level: they share one path latency.
  const double latency = static_cast<double>(load_a.latency);
  const timing::Path mac_path = prob.ternary ? timing::Path::kTernaryMac : timing::Path::kDefault;
  const double mac_step =
      static_cast<double>(cost.unit(timing::Unit::kMac, p.tm * p.tn * p.kt, mac_path).busy);
  // A packed W tile is decoded while the MACs of the step before run: the decoder is a third stage.
  double decode_step = 0, decode_fill = 0;
  if (t > 0) {
    const timing::UnitTime d = cost.unit(timing::Unit::kDptDecoder, p.kt / t * p.tn,
                                         prob.w_base3 ? timing::Path::kBase3 : timing::Path::kDefault);
    decode_step = static_cast<double>(d.busy);
    decode_fill = static_cast<double>(d.duration());
  }
  const double buffers = static_cast<double>(p.buffers);
  const double mac_whole =
      static_cast<double>(cost.unit(timing::Unit::kMac, p.tm * p.tn * p.kt, mac_path).duration());
  // A ragged last M block's passes compute only the row pieces that hold its rows.
  const std::uint64_t rows_last = pass_tile_rows(p, last_block_rows(prob, p));
  const bool ragged = rows_last < p.tm;
  const double mac_last =
      static_cast<double>(cost.unit(timing::Unit::kMac, rows_last * p.tn * p.kt, mac_path).busy);
  // The steady-state period of a step whose transfers are `transfers` and MACs `mac`.
  auto period = [&](const std::vector<double>& transfers, double mac) {
    const double transfer_step = *std::max_element(transfers.begin(), transfers.end());
    double cycles = std::max({mac, transfer_step, decode_step, (mac + transfer_step + latency) / buffers});
    if (t > 0)
      // b W buffers: step s+b's W load waits for the decode of step s to read its buffer, and that
      // decode for step s's load to land; two B buffers: step s+2's decode waits for step s's MACs.
      cycles = std::max(
          {cycles, (transfer_step + latency + decode_fill) / buffers, (decode_fill + mac_whole) / 2});
    return cycles;
  };
  // A pass after the first, whose steps' transfers are `transfers`: row_pieces of its steps carry a
  // piece of the previous pass's store (the others none; the lookahead buffers cannot hide a piece
  // longer than a step). Pieces are disjoint blocks of C, which do not wait for each other.
  auto later_pass = [&](const std::vector<double>& transfers, double mac) {
    const double plain = static_cast<double>(p.steps) * period(transfers, mac);
    if (!stores || passes <= 1) return plain;
    std::vector<double> carrying = transfers;
    add_transfer(store, 1.0 / pieces, carrying);
    return (static_cast<double>(p.steps) - pieces) * period(transfers, mac) + pieces * period(carrying, mac);
  };
  // Passes that load both operands (all, or the first of each block that shares the stationary
  // one) and those that load the other alone; of each, those of the ragged last M block (one per
  // column block and group; with A kept, that block's passes over N).
  const bool a_kept = p.stationary == Stationary::kA, kept = p.stationary != Stationary::kNone;
  const double both_passes = a_kept ? a_passes : b_passes;
  const std::vector<double>& one_loads = a_kept ? step_b : step_a;
  const double groups = static_cast<double>(prob.groups), columns = static_cast<double>(p.n_passes) * groups;
  const bool one_block = m_blocks(prob, p) == 1;
  double ragged_both = 0, ragged_one = 0;
  if (ragged && a_kept)
    ragged_both = groups, ragged_one = columns - groups;
  else if (ragged && kept && !one_block)
    ragged_one = columns;
  else if (ragged)
    ragged_both = columns;
  const bool first_ragged = ragged && one_block;
  const double mac_first = first_ragged ? mac_last : mac_step;
  auto passes_cost = [&](const std::vector<double>& loads, double count, double ragged_count) {
    return (count - ragged_count) * later_pass(loads, mac_step) + ragged_count * later_pass(loads, mac_last);
  };
  const double boundary = p.pk > 1 ? 0 : requant;
  // The first step's loads are the fill; the last step's period is only its MAC (its loads landed
  // in the period before, where a transfer-bound run spends its time).
  const double first_pass = p.tiling.charge_first_pass
                                ? later_pass(step, mac_first) - period(step, mac_first)
                                : (static_cast<double>(p.steps) - 1) * period(step, mac_first);
  const double body = first_pass + passes_cost(step, both_passes - 1, ragged_both - (first_ragged ? 1 : 0)) +
                      passes_cost(kept ? one_loads : step, passes - both_passes, ragged_one) +
                      (passes - 1) * boundary;
  // The last step: its MACs, a piece's requant and the store of the last M block's rows (its share
  // of a whole block's store).
  const LastStep ls = last_step(prob, p);
  const double mac_piece =
      static_cast<double>(cost.unit(timing::Unit::kMac, ls.rows * p.tn * p.kt, mac_path).busy);
  const double last_requant =
      prob.int32_out ? 0 : static_cast<double>(cost.unit(timing::Unit::kRequant, ls.rows * p.tn).duration());
  const double store_busy = stores
                                ? static_cast<double>(store.duration() - store.latency) *
                                      static_cast<double>(last_block_rows(prob, p)) / static_cast<double>(bm)
                                : 0;
  const double last = last_requant + macs_then_store(mac_piece, ls.pieces, store_busy) +
                      (stores ? static_cast<double>(store.latency) : 0);
  const double fill_drain = load_step + latency + decode_fill + reduce + last;
  // A resource's total already holds the first loads and the last store: where one resource bounds
  // the run (DRAM on a memory-bound shape), only the path latency at each end is outside it.
  const double busiest = *std::max_element(totals.begin(), totals.end());
  return std::max(body + fill_drain, busiest + last_requant + latency + (stores ? latency : 0));
}

double estimate_cycles(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m,
                       const timing::TransferTime* before, const timing::TransferTime* a_load) {
  auto r = estimate_or_error(prob, p, m, before, a_load);
  if (auto* d = std::get_if<layout::Diagnostic>(&r)) throw layout::LayoutError(*d);
  return std::get<double>(r);
}

namespace {

// What every bound below shares: the path latency and a pass's block of C.
struct BoundTerms {
  double latency = 0;
  std::uint64_t bm = 0, bn = 0;
};

double requant_busy(const QgemmProblem& prob, const timing::CostModel& cost, std::uint64_t elements) {
  return prob.int32_out ? 0 : static_cast<double>(cost.unit(timing::Unit::kRequant, elements).busy);
}

BoundTerms bound_terms(const QgemmProblem& prob, const QgemmPlan& p, const timing::CostModel& cost) {
  BoundTerms b;
  b.latency = static_cast<double>(cost.path_latency());
  b.bm = std::min(prob.m, p.pm * p.tm), b.bn = std::min(prob.n, p.pn * p.tn);
  return b;
}

double dram_busy(const timing::CostModel& cost, std::uint64_t bytes) {
  return static_cast<double>(cost.dram(bytes).busy);
}

}  // namespace

double estimate_lower_bound(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m) {
  // The estimate is at least its body — every step at least its MAC, every step but the last at
  // least (MAC + path latency) / buffers — after the fill (at least the first step's DRAM reads) and
  // before the drain (the last requant and at least the last store's DRAM writes), and at least
  // DRAM's total, which reads each distinct byte of a tile once and writes each of C's; two path
  // latencies wrap both. The same double arithmetic as estimate(), so the bound never rounds above
  // it.
  const timing::CostModel cost(m);
  const BoundTerms b = bound_terms(prob, p, cost);
  const double passes = static_cast<double>(p.m_passes * p.n_passes * prob.groups);
  const double steps = static_cast<double>(p.steps) * passes;
  const std::uint64_t bk = std::min(prob.k, p.pk * p.kt);
  const std::uint64_t w_rows = prob.w_trits_per_byte > 0 ? ceil_div(bk, prob.w_trits_per_byte) : bk;
  const double load = dram_busy(cost, b.bm * bk) + dram_busy(cost, w_rows * b.bn);
  const double store = p.c_resident ? 0 : dram_busy(cost, b.bm * b.bn * prob.out_bytes());
  // A stationary operand crosses DRAM once per block that shares it.
  const double per_pass = static_cast<double>(p.steps);
  const double dram =
      per_pass * static_cast<double>(a_loading_passes(prob, p)) * dram_busy(cost, b.bm * bk) +
      per_pass * static_cast<double>(b_loading_passes(prob, p)) * dram_busy(cost, w_rows * b.bn) +
      passes * store;
  const timing::Path mac_path = prob.ternary ? timing::Path::kTernaryMac : timing::Path::kDefault;
  const double mac_step =
      static_cast<double>(cost.unit(timing::Unit::kMac, p.tm * p.tn * p.kt, mac_path).busy);
  // The ragged last M block's steps (one pass per column block and group) compute its rows only.
  const std::uint64_t rows_last = pass_tile_rows(p, last_block_rows(prob, p));
  const bool ragged = rows_last < p.tm;
  const double mac_last =
      static_cast<double>(cost.unit(timing::Unit::kMac, rows_last * p.tn * p.kt, mac_path).busy);
  auto at_least = [&](double mac) {
    return std::max(mac, (mac + b.latency) / static_cast<double>(p.buffers));
  };
  const double ragged_steps = ragged ? static_cast<double>(p.n_passes * prob.groups * p.steps) : 0;
  const double first = ragged && m_blocks(prob, p) == 1 ? at_least(mac_last) : at_least(mac_step);
  const double body = (steps - ragged_steps) * at_least(mac_step) + ragged_steps * at_least(mac_last) - first;
  // The last step and the last block's store, as the estimate takes them.
  const LastStep ls = last_step(prob, p);
  const double mac_piece =
      static_cast<double>(cost.unit(timing::Unit::kMac, ls.rows * p.tn * p.kt, mac_path).busy);
  const double last_requant = requant_busy(prob, cost, ls.rows * p.tn);
  const double last_store = store * static_cast<double>(last_block_rows(prob, p)) / static_cast<double>(b.bm);
  const double last = last_requant + macs_then_store(mac_piece, ls.pieces, last_store);
  return std::max(body + load + last, dram + last_requant) + b.latency + b.latency;
}

double passes_lower_bound(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m) {
  // estimate_lower_bound at any K step: the MACs and DRAM's bytes summed over the steps are at
  // least those of K in one step (a step's cycles round up), and at least one step's MACs.
  const timing::CostModel cost(m);
  const BoundTerms b = bound_terms(prob, p, cost);
  const double passes = static_cast<double>(p.m_passes * p.n_passes * prob.groups);
  const std::uint64_t kk = ceil_div(prob.k, p.pk);
  const std::uint64_t w_rows = prob.w_trits_per_byte > 0 ? ceil_div(prob.k, prob.w_trits_per_byte) : prob.k;
  const double store = p.c_resident ? 0 : dram_busy(cost, b.bm * b.bn * prob.out_bytes());
  const double dram = passes * store +
                      static_cast<double>(a_loading_passes(prob, p)) * dram_busy(cost, b.bm * prob.k) +
                      static_cast<double>(b_loading_passes(prob, p)) * dram_busy(cost, w_rows * b.bn);
  const timing::Path mac_path = prob.ternary ? timing::Path::kTernaryMac : timing::Path::kDefault;
  auto mac_busy = [&](std::uint64_t rows) {
    return static_cast<double>(cost.unit(timing::Unit::kMac, rows * p.tn * kk, mac_path).busy);
  };
  // A ragged last M block's passes compute at least its rows per unit (as many row pieces as steps
  // allow). The estimate counts the last step's MACs in place of the first's: where the last is
  // ragged and the first is not, at most a whole pass's difference.
  const std::uint64_t bm_last = last_block_rows(prob, p), rows_min = ceil_div(bm_last, p.pm);
  const double ragged = rows_min < p.tm ? static_cast<double>(p.n_passes * prob.groups) : 0;
  double macs = (passes - ragged) * mac_busy(p.tm) + ragged * mac_busy(rows_min);
  if (ragged > 0 && m_blocks(prob, p) > 1) macs -= mac_busy(p.tm) - mac_busy(rows_min);
  // The last requant is at least one row's (the last step may run in tail pieces of one row).
  return std::max(macs, dram) + requant_busy(prob, cost, p.tn) + b.latency + b.latency;
}

std::optional<Rejection> estimate_plan(const QgemmProblem& prob, QgemmPlan& plan,
                                       const machine::MachineConfig& m) {
  // The estimate binds the tile layouts: one that does not bind is this candidate's failure.
  auto r = estimate_or_error(prob, plan, m, nullptr, nullptr);
  if (auto* d = std::get_if<layout::Diagnostic>(&r)) return Rejection{Prune::kLayout, d->render()};
  plan.estimated_cycles = std::get<double>(r);
  return std::nullopt;
}

}  // namespace treesim::kernels
