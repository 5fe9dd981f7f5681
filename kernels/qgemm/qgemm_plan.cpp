// Planning a quantized GEMM: tiles sized to the LM, layouts, and the default planner's search.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "kernels/qgemm/qgemm.h"
#include "sim/layout/bound_layout.h"
#include "sim/layout/loader_plan.h"
#include "sim/layout/parse.h"
#include "sim/layout/tensor_layout.h"
#include "sim/timing/cost_model.h"

namespace treesim::kernels {
namespace {

using timing::ceil_div;

std::uint64_t product(const std::vector<Assignment::Use>& uses) {
  std::uint64_t p = 1;
  for (const auto& u : uses) p *= u.size;
  return p;
}

// "16_L2B, 8_L1B, " for a list of level uses.
std::string level_prefix(const std::vector<Assignment::Use>& uses, const machine::MachineConfig& m) {
  std::string s;
  for (const auto& u : uses) s += fmt::format("{}_{}, ", u.size, m.levels[u.level].name);
  return s;
}

// "1_MAB, 1_PE, ": K levels pinned to their unit 0, where the reduced sums are.
std::string pinned_prefix(const std::vector<Assignment::Use>& uses, const machine::MachineConfig& m) {
  std::string s;
  for (const auto& u : uses) s += fmt::format("1_{}, ", m.levels[u.level].name);
  return s;
}

std::string pad_prefix(std::uint64_t rows, std::uint64_t cols, std::uint64_t padded_rows,
                       std::uint64_t padded_cols) {
  if (rows == padded_rows && cols == padded_cols) return "";
  return fmt::format("({},{})/", rows, cols);
}

// A rows×cols matrix whose rows split over `row_levels` and then r per unit, and whose columns over
// `col_levels` and then c per unit, each unit holding its r×c block row-major; a pad prefix pads the
// matrix to row_units·r × col_units·c when it is smaller. Every operand layout of the kernel is one.
std::string matrix_layout(std::uint64_t rows, std::uint64_t cols, const std::string& row_levels,
                          std::uint64_t row_units, std::uint64_t r, const std::string& col_levels,
                          std::uint64_t col_units, std::uint64_t c) {
  return pad_prefix(rows, cols, row_units * r, col_units * c) +
         fmt::format("(({}{}:{}), ({}{}:1))", row_levels, r, c, col_levels, c);
}

layout::TrafficPlan traffic(const std::string& text, std::vector<std::uint64_t> shape,
                            std::size_t element_bytes, const machine::MachineConfig& m) {
  layout::TensorLayout parsed = layout::parse_layout_or_throw(text, m);
  return layout::plan_load(layout::bind_or_throw(parsed, shape, m, element_bytes));
}

// Cycles each resource is busy per transfer of a tile (the cost model's stages), added into
// `totals`: DRAM first, then every level's down and up port.
void add_transfer(const timing::TransferTime& t, double times, std::vector<double>& totals) {
  for (const timing::Stage& s : t.stages) {
    const std::size_t at = s.dram ? 0 : 1 + 2 * s.level + (s.direction == timing::Direction::kUp ? 1 : 0);
    totals[at] += times * static_cast<double>(s.cycles);
  }
}

// An estimate of the program's cycles: the busiest resource over the whole run plus what cannot
// overlap (the first loads' latency, the last pass's requant and store).
double estimate(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m) {
  const timing::CostModel cost(m);
  const double passes = static_cast<double>(p.m_passes * p.n_passes);
  const double steps = static_cast<double>(p.steps) * passes;
  std::vector<double> totals(1 + 2 * m.levels.size(), 0.0);
  const std::uint64_t bm = std::min(prob.m, p.pm * p.tm), bn = std::min(prob.n, p.pn * p.tn);
  const std::uint64_t bk = std::min(prob.k, p.pk * p.kt);
  const timing::TransferTime load_a = cost.load(traffic(tile_layout_a(p, m, bm, bk), {bm, bk}, 1, m));
  add_transfer(load_a, steps, totals);
  add_transfer(cost.load(traffic(tile_layout_b(p, m, bk, bn), {bk, bn}, 1, m)), steps, totals);
  const double load_step = *std::max_element(totals.begin(), totals.end()) / steps;
  layout::TensorLayout c = layout::parse_layout_or_throw(tile_layout_c(p, m, bm, bn), m);
  const timing::TransferTime store =
      cost.store(layout::plan_gather(layout::bind_or_throw(c, {bm, bn}, m, 1)));
  add_transfer(store, passes, totals);
  // Every transfer crosses DRAM and every level: they share one path latency.
  const double latency = static_cast<double>(load_a.latency);
  // With two buffers per operand, a step's loads start when the MAC two steps back has finished
  // with their buffer and must land before the next MAC: a step costs the longer of its MAC and
  // its loads' busiest stage plus the path latency.
  const double mac_step = static_cast<double>(cost.unit(timing::Unit::kMac, p.tm * p.tn * p.kt).busy);
  const double body = steps * std::max(mac_step, load_step + latency);
  const double busiest = std::max(body, *std::max_element(totals.begin(), totals.end()));
  double store_stage = 0;  // the store's busiest port (DRAM's write overlaps it)
  for (const timing::Stage& s : store.stages)
    if (!s.dram) store_stage = std::max(store_stage, static_cast<double>(s.cycles));
  const double requant = static_cast<double>(cost.unit(timing::Unit::kRequant, p.tm * p.tn).busy);
  // Fill (the first loads) and drain (the last requant and store) do not overlap the body.
  return busiest + load_step + latency + requant + store_stage + latency;
}

const char* dim_name(const Assignment& a, std::size_t level) {
  for (const auto& u : a.m)
    if (u.level == level) return "M";
  for (const auto& u : a.n)
    if (u.level == level) return "N";
  for (const auto& u : a.k)
    if (u.level == level) return "K";
  return "-";
}

}  // namespace

// Tile layouts for a block of `rows`×`cols` logical elements of each operand.
std::string tile_layout_a(const QgemmPlan& p, const machine::MachineConfig& m, std::uint64_t rows,
                          std::uint64_t cols) {
  const Assignment& a = p.assignment;
  return matrix_layout(rows, cols, level_prefix(a.m, m), p.pm, p.tm, level_prefix(a.k, m), p.pk, p.kt);
}
std::string tile_layout_b(const QgemmPlan& p, const machine::MachineConfig& m, std::uint64_t rows,
                          std::uint64_t cols) {
  const Assignment& a = p.assignment;
  return matrix_layout(rows, cols, level_prefix(a.k, m), p.pk, p.kt, level_prefix(a.n, m), p.pn, p.tn);
}
std::string tile_layout_c(const QgemmPlan& p, const machine::MachineConfig& m, std::uint64_t rows,
                          std::uint64_t cols) {
  const Assignment& a = p.assignment;
  return matrix_layout(rows, cols, level_prefix(a.m, m) + pinned_prefix(a.k, m), p.pm, p.tm,
                       level_prefix(a.n, m), p.pn, p.tn);
}
std::string tile_layout_vector(const QgemmPlan& p, const machine::MachineConfig& m, std::uint64_t cols) {
  std::string pad = cols == p.pn * p.tn ? "" : fmt::format("({})/", cols);
  return pad + fmt::format("(({}{}:1))", level_prefix(p.assignment.n, m), p.tn);
}

void check_problem(const QgemmProblem& p) {
  if (p.m == 0 || p.n == 0 || p.k == 0)
    throw QgemmError(fmt::format("M, N and K must be positive, got {}×{}×{}", p.m, p.n, p.k));
  for (auto [t, z, name] : {std::tuple{p.a_dtype, p.a_zero, "A"}, std::tuple{p.b_dtype, p.b_zero, "B"}}) {
    if (t == core::DType::kInt32) throw QgemmError(fmt::format("{} must be int8 or uint8", name));
    std::int32_t lo = t == core::DType::kUInt8 ? 0 : -128, hi = t == core::DType::kUInt8 ? 255 : 127;
    if (z < lo || z > hi)
      throw QgemmError(fmt::format("{}'s zero point {} is outside {}'s range [{}, {}]", name, z,
                                   core::dtype_name(t), lo, hi));
  }
  if (p.out.multipliers.size() != 1 && p.out.multipliers.size() != p.n)
    throw QgemmError(fmt::format("{} output multipliers: give 1 (per tensor) or N = {} (per channel)",
                                 p.out.multipliers.size(), p.n));
  try {
    numeric::validate(p.out, p.n);
  } catch (const numeric::QuantError& e) {
    throw QgemmError(e.what());
  }
}

namespace {

// make_plan without its estimate: tiles, steps, passes and the LM map (no layout is built).
QgemmPlan shape_plan(const QgemmProblem& prob, const machine::MachineConfig& m, const Assignment& a,
                     std::uint64_t extra_m_passes, std::uint64_t min_steps) {
  QgemmPlan p;
  p.assignment = a;
  p.pm = product(a.m), p.pn = product(a.n), p.pk = product(a.k);
  const std::size_t last = m.levels.size() - 1;
  // K partial sums are added over whole subtrees, so K must own the lowest levels at full fan-out.
  if (!a.k.empty()) {
    std::vector<std::size_t> levels;
    for (const auto& u : a.k) {
      if (u.size != m.levels[u.level].fanout)
        throw QgemmError(
            fmt::format("K uses {} of the {} {} units: a K split must use whole levels (the tree sums "
                        "partial products over whole subtrees)",
                        u.size, m.levels[u.level].fanout, m.levels[u.level].name));
      levels.push_back(u.level);
    }
    std::sort(levels.begin(), levels.end());
    for (std::size_t i = 0; i < levels.size(); ++i)
      if (levels[i] != last + 1 - levels.size() + i)
        throw QgemmError(
            fmt::format("K is split over {}, but a K split must take the lowest levels (those below "
                        "the level where the partial sums meet)",
                        m.levels[levels[i]].name));
    std::size_t top = last + 1 - levels.size();
    p.reduce_level = top == 0 ? "board" : m.levels[top - 1].name;
  }
  for (const auto* list : {&a.m, &a.n, &a.k})
    for (const auto& u : *list)
      if (u.size == 0 || u.size > m.levels[u.level].fanout)
        throw QgemmError(fmt::format("{} uses {} units but has {}", m.levels[u.level].name, u.size,
                                     m.levels[u.level].fanout));

  const std::uint64_t lm = m.lm_bytes();
  p.m_passes = extra_m_passes;
  auto fixed_bytes = [&] {
    std::uint64_t acc = p.tm * p.tn * 4;
    std::uint64_t bytes = acc + (p.pk > 1 ? acc : 0) + 2 * p.tm * p.tn;
    if (prob.has_bias) bytes += p.tn * 4;
    if (prob.per_channel()) bytes += 2 * p.tn * 4;
    return bytes;
  };
  // Split C into passes until a pass's tile leaves room for a K step of at least 8.
  for (;;) {
    p.tm = ceil_div(prob.m, p.pm * p.m_passes);
    p.tn = ceil_div(prob.n, p.pn * p.n_passes);
    std::uint64_t need =
        fixed_bytes() + 2 * (p.tm + p.tn) * std::min<std::uint64_t>(8, ceil_div(prob.k, p.pk));
    if (need <= lm) break;
    if (p.tm == 1 && p.tn == 1) throw QgemmError(fmt::format("a 1×1 C tile does not fit the {}-byte LM", lm));
    if (p.tm >= p.tn)
      p.m_passes *= 2;
    else
      p.n_passes *= 2;
  }
  const std::uint64_t kk = ceil_div(prob.k, p.pk);
  const std::uint64_t kt_max = (lm - fixed_bytes()) / (2 * (p.tm + p.tn));
  // At least `min_steps` steps when K allows: more steps overlap more loads with MACs.
  p.steps = ceil_div(kk, std::max<std::uint64_t>(1, std::min({kk, kt_max, ceil_div(kk, min_steps)})));
  p.kt = ceil_div(kk, p.steps);  // even steps: the least padding
  // LM map.
  std::uint64_t at = 0;
  auto take = [&](std::uint64_t bytes) {
    std::uint64_t here = at;
    at += bytes;
    return here;
  };
  p.lm_acc = take(p.tm * p.tn * 4);
  p.lm_reduced = p.pk > 1 ? take(p.tm * p.tn * 4) : p.lm_acc;
  p.lm_out[0] = take(p.tm * p.tn);
  p.lm_out[1] = take(p.tm * p.tn);
  if (prob.has_bias) p.lm_bias = take(p.tn * 4);
  if (prob.per_channel()) {
    p.lm_mult = take(p.tn * 4);
    p.lm_shift = take(p.tn * 4);
  }
  for (auto& b : p.lm_a) b = take(p.tm * p.kt);
  for (auto& b : p.lm_b) b = take(p.kt * p.tn);
  p.lm_bytes = at;
  if (p.lm_bytes > lm)
    throw QgemmError(fmt::format("the plan needs {} LM bytes, the LM has {}", p.lm_bytes, lm));
  return p;
}

}  // namespace

QgemmPlan make_plan(const QgemmProblem& prob, const machine::MachineConfig& m, const Assignment& a,
                    std::uint64_t extra_m_passes, std::uint64_t min_steps) {
  QgemmPlan p = shape_plan(prob, m, a, extra_m_passes, min_steps);
  p.estimated_cycles = estimate(prob, p, m);
  return p;
}

double estimate_lower_bound(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m) {
  // The estimate's busiest resource is at least every step's MAC, every step's path latency, and
  // DRAM, which reads each distinct byte of a tile once and writes each of C's; fill and drain add
  // two path latencies and the last requant. The same double arithmetic as estimate(), so the
  // bound never rounds above it.
  const timing::CostModel cost(m);
  std::uint64_t path = cost.dram(0).latency;  // a transfer's latency: DRAM's and every level's
  for (std::size_t l = 0; l < m.levels.size(); ++l) path += cost.port(l, timing::Direction::kDown, 0).latency;
  const double latency = static_cast<double>(path);
  const double passes = static_cast<double>(p.m_passes * p.n_passes);
  const double steps = static_cast<double>(p.steps) * passes;
  const std::uint64_t bm = std::min(prob.m, p.pm * p.tm), bn = std::min(prob.n, p.pn * p.tn);
  const std::uint64_t bk = std::min(prob.k, p.pk * p.kt);
  double dram = 0;
  dram += steps * static_cast<double>(cost.dram(bm * bk).busy);
  dram += steps * static_cast<double>(cost.dram(bk * bn).busy);
  dram += passes * static_cast<double>(cost.dram(bm * bn).busy);
  const double mac_step = static_cast<double>(cost.unit(timing::Unit::kMac, p.tm * p.tn * p.kt).busy);
  const double requant = static_cast<double>(cost.unit(timing::Unit::kRequant, p.tm * p.tn).busy);
  return std::max({steps * mac_step, steps * latency, dram}) + requant + latency + latency;
}

QgemmPlan default_plan(const QgemmProblem& prob, const machine::MachineConfig& m, const Assignment& fixed) {
  const std::size_t levels = m.levels.size();
  std::vector<bool> taken(levels, false);
  for (const auto* list : {&fixed.m, &fixed.n, &fixed.k})
    for (const auto& u : *list) taken[u.level] = true;
  // The error of the last candidate in enumeration order that failed (what an exhaustive search
  // would report when none works).
  std::string last_error = "no assignment of levels works";
  std::size_t last_error_order = 0;
  std::size_t order = 0;
  auto failed = [&](const std::exception& e, std::size_t at) {
    if (at < last_error_order) return;
    last_error = e.what();
    last_error_order = at;
  };
  // Every candidate's tiles, in enumeration order, with the lower bound of its estimate.
  struct Candidate {
    QgemmPlan plan;
    double bound = 0;
    std::size_t order = 0;
  };
  std::vector<Candidate> candidates;
  // Every free level goes to M, N, K (if not fixed) or nowhere: 4^levels candidates at most.
  std::uint64_t combos = 1;
  for (std::size_t l = 0; l < levels; ++l) combos *= 4;
  for (std::uint64_t code = 0; code < combos; ++code) {
    Assignment a = fixed;
    std::uint64_t c = code;
    bool skip = false;
    for (std::size_t l = 0; l < levels; ++l, c /= 4) {
      int choice = static_cast<int>(c % 4);
      if (taken[l]) {
        skip = skip || choice != 0;  // fixed levels are enumerated once
        continue;
      }
      Assignment::Use use{l, m.levels[l].fanout};
      if (choice == 1 && !fixed.fixed_m)
        a.m.push_back(use);
      else if (choice == 2 && !fixed.fixed_n)
        a.n.push_back(use);
      else if (choice == 3 && !fixed.fixed_k)
        a.k.push_back(use);
      else if (choice != 0)
        skip = true;
    }
    if (skip) continue;
    // A dimension needs no more units than it has elements.
    if ((!fixed.fixed_m && product(a.m) > prob.m * 2) || (!fixed.fixed_n && product(a.n) > prob.n * 2) ||
        (!fixed.fixed_k && product(a.k) > prob.k))
      continue;
    for (auto [extra, min_steps] :
         {std::pair<std::uint64_t, std::uint64_t>{1, 1}, {2, 1}, {4, 1}, {1, 2}, {1, 4}, {2, 2}, {2, 4}}) {
      ++order;
      try {
        QgemmPlan p = shape_plan(prob, m, a, extra, min_steps);
        const double bound = estimate_lower_bound(prob, p, m);
        candidates.push_back({std::move(p), bound, order});
      } catch (const std::exception& e) {
        failed(e, order);
      }
    }
  }
  // Estimates build layouts and traffic plans, the costly part: take the candidates by their bound
  // and stop at the first whose bound is above the best estimate, which no later one can beat. The
  // winner is the one an exhaustive search picks: the least estimate, the earliest on ties.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& x, const Candidate& y) { return x.bound < y.bound; });
  std::optional<QgemmPlan> best;
  std::size_t best_order = 0;
  for (Candidate& c : candidates) {
    if (best &&
        (c.bound > best->estimated_cycles || (c.bound == best->estimated_cycles && c.order > best_order))) {
      if (c.bound > best->estimated_cycles) break;
      continue;
    }
    try {
      c.plan.estimated_cycles = estimate(prob, c.plan, m);
    } catch (const std::exception& e) {
      failed(e, c.order);
      continue;
    }
    if (!best || c.plan.estimated_cycles < best->estimated_cycles ||
        (c.plan.estimated_cycles == best->estimated_cycles && c.order < best_order)) {
      best = c.plan;
      best_order = c.order;
    }
  }
  if (!best) throw QgemmError("no plan fits this machine: " + last_error);
  return *best;
}

// The whole operands: a unit's share is its tiles of every pass and step together.
std::string whole_layout_a(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m) {
  const Assignment& a = p.assignment;
  return matrix_layout(prob.m, prob.k, level_prefix(a.m, m), p.pm, p.tm * p.m_passes, level_prefix(a.k, m),
                       p.pk, ceil_div(prob.k, p.pk));
}

std::string whole_layout_b(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m) {
  const Assignment& a = p.assignment;
  return matrix_layout(prob.k, prob.n, level_prefix(a.k, m), p.pk, ceil_div(prob.k, p.pk),
                       level_prefix(a.n, m), p.pn, p.tn * p.n_passes);
}

std::string whole_layout_c(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m) {
  const Assignment& a = p.assignment;
  return matrix_layout(prob.m, prob.n, level_prefix(a.m, m) + pinned_prefix(a.k, m), p.pm, p.tm * p.m_passes,
                       level_prefix(a.n, m), p.pn, p.tn * p.n_passes);
}

std::string describe(const QgemmPlan& p, const machine::MachineConfig& m) {
  std::string levels;
  for (std::size_t l = 0; l < m.levels.size(); ++l)
    levels += fmt::format("{}{}→{}", l ? ", " : "", m.levels[l].name, dim_name(p.assignment, l));
  return fmt::format(
      "plan: {}; {}×{}×{} units on M×N×K; C tile {}×{} per PE in {}×{} passes; K in {} steps of {}{}; LM {} "
      "of {} "
      "bytes",
      levels, p.pm, p.pn, p.pk, p.tm, p.tn, p.m_passes, p.n_passes, p.steps, p.kt,
      p.reduce_level.empty() ? "" : ", partial sums reduced at " + p.reduce_level, p.lm_bytes, m.lm_bytes());
}

}  // namespace treesim::kernels
