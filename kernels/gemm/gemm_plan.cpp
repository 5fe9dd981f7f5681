// Planning a quantized GEMM: tiles sized to the LM, layouts, and the default planner's search.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <numeric>
#include <variant>

#include <fmt/format.h>

#include "kernels/gemm/gemm.h"
#include "kernels/gemm/gemm_estimate.h"
#include "sim/layout/bound_layout.h"
#include "sim/layout/loader_plan.h"
#include "sim/layout/parse.h"
#include "sim/layout/tensor_layout.h"
#include "sim/timing/cost_model.h"

namespace treesim::kernels {
namespace {

using timing::ceil_div;

std::uint64_t round_up(std::uint64_t x, std::uint64_t multiple) { return ceil_div(x, multiple) * multiple; }

std::string dim_name(const Assignment& a, std::size_t level) {
  const std::uint64_t um = units_at(a.m, level), un = units_at(a.n, level);
  if (um && un) return fmt::format("M×N ({}×{})", um, un);
  if (um) return "M";
  if (un) return "N";
  if (units_at(a.k, level)) return "K";
  return "-";
}

}  // namespace

void check_problem(const QgemmProblem& p) {
  if (p.m == 0 || p.n == 0 || p.k == 0)
    throw QgemmError(fmt::format("M, N and K must be positive, got {}×{}×{}", p.m, p.n, p.k));
  if (p.groups == 0) throw QgemmError("a grouped GEMM needs at least one group");
  for (auto [t, z, name] : {std::tuple{p.a_dtype, p.a_zero, "A"}, std::tuple{p.b_dtype, p.b_zero, "B"}}) {
    if (t == core::DType::kInt32) throw QgemmError(fmt::format("{} must be int8 or uint8", name));
    std::int32_t lo = t == core::DType::kUInt8 ? 0 : -128, hi = t == core::DType::kUInt8 ? 255 : 127;
    if (z < lo || z > hi)
      throw QgemmError(fmt::format("{}'s zero point {} is outside {}'s range [{}, {}]", name, z,
                                   core::dtype_name(t), lo, hi));
  }
  if (p.int32_out) {
    if (p.has_bias) throw QgemmError("int32 outputs take no bias (they are the accumulators)");
    if (p.ternary) throw QgemmError("int32 outputs are for int8 weights");
    return;
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

const char* stationary_name(Stationary s) {
  switch (s) {
    case Stationary::kNone:
      return "none";
    case Stationary::kA:
      return "A";
    case Stationary::kB:
      return "B";
  }
  return "?";
}

std::uint64_t a_loading_passes(const QgemmProblem& prob, const QgemmPlan& p) {
  return prob.groups * (p.stationary == Stationary::kA ? p.m_passes : p.m_passes * p.n_passes);
}

std::uint64_t b_loading_passes(const QgemmProblem& prob, const QgemmPlan& p) {
  return prob.groups * (p.stationary == Stationary::kB ? p.n_passes : p.m_passes * p.n_passes);
}

std::uint64_t tail_pieces(const QgemmPlan& p) { return p.c_resident || p.pk > 1 ? 1 : p.row_pieces; }

std::uint64_t pass_tile_rows(const QgemmPlan& p, std::uint64_t bm) {
  const std::uint64_t tr = p.tm / p.row_pieces;
  return std::min(p.tm, ceil_div(bm, p.pm * tr) * tr);
}

std::uint64_t last_block_rows(const QgemmProblem& prob, const QgemmPlan& p) {
  return prob.m - (m_blocks(prob, p) - 1) * p.pm * p.tm;
}

const char* prune_name(Prune reason) {
  switch (reason) {
    case Prune::kTooManyUnits:
      return "more units than elements";
    case Prune::kPartialKSplit:
      return "K split over part of a level";
    case Prune::kKSplitNotLowest:
      return "K split not on the lowest levels";
    case Prune::kUnitsOverFanout:
      return "more units than the fan-out";
    case Prune::kTileTooLarge:
      return "C tile does not fit the LM";
    case Prune::kLmOverflow:
      return "buffers do not fit the LM";
    case Prune::kLayout:
      return "layout does not bind";
    case Prune::kDuplicate:
      return "same plan as another";
    case Prune::kBound:
      return "lower bound above the best estimate";
    case Prune::kNoFurtherSplit:
      return "C splits no further";
    case Prune::kReduceWait:
      return "three buffers with K split over passes";
  }
  return "?";
}

std::variant<std::string, Rejection> check_assignment(const machine::MachineConfig& m, const Assignment& a) {
  std::string reduce_level;
  const std::size_t last = m.levels.size() - 1;
  // K partial sums are added over whole subtrees, so K must own the lowest levels at full fan-out.
  if (!a.k.empty()) {
    std::vector<std::size_t> levels;
    for (const auto& u : a.k) {
      if (u.size != m.levels[u.level].fanout)
        return Rejection{
            Prune::kPartialKSplit,
            fmt::format("K uses {} of the {} {} units: a K split must use whole levels (the tree sums "
                        "partial products over whole subtrees)",
                        u.size, m.levels[u.level].fanout, m.levels[u.level].name)};
      levels.push_back(u.level);
    }
    std::sort(levels.begin(), levels.end());
    for (std::size_t i = 0; i < levels.size(); ++i)
      if (levels[i] != last + 1 - levels.size() + i)
        return Rejection{
            Prune::kKSplitNotLowest,
            fmt::format("K is split over {}, but a K split must take the lowest levels (those below "
                        "the level where the partial sums meet)",
                        m.levels[levels[i]].name)};
    std::size_t top = last + 1 - levels.size();
    reduce_level = top == 0 ? "board" : m.levels[top - 1].name;
  }
  for (const auto* list : {&a.m, &a.n, &a.k})
    for (const auto& u : *list) {
      // A level shared by M and N uses u_m · u_n units.
      const std::uint64_t other = list == &a.k ? 0 : units_at(list == &a.m ? a.n : a.m, u.level);
      if (u.size == 0 || u.size * std::max<std::uint64_t>(other, 1) > m.levels[u.level].fanout)
        return Rejection{Prune::kUnitsOverFanout,
                         fmt::format("{} uses {} units but has {}", m.levels[u.level].name,
                                     u.size * std::max<std::uint64_t>(other, 1), m.levels[u.level].fanout)};
    }
  return reduce_level;
}

// make_plan without its estimate: tiles, steps, passes and the LM map (no layout is built). A plan
// that cannot work comes back as its reason.
std::variant<QgemmPlan, Rejection> try_shape_plan(const QgemmProblem& prob, const machine::MachineConfig& m,
                                                  const Assignment& a, const Tiling& tiling) {
  QgemmPlan p;
  auto checked = check_assignment(m, a);
  if (auto* r = std::get_if<Rejection>(&checked)) return *r;
  p.reduce_level = std::get<std::string>(std::move(checked));
  p.assignment = a;
  p.tiling = tiling;
  p.pm = units_of(a.m), p.pn = units_of(a.n), p.pk = units_of(a.k);
  const std::uint64_t lm = m.lm_bytes();
  p.m_passes = tiling.extra_m_passes;
  p.buffers = std::clamp<std::uint64_t>(tiling.buffers, 2, kMaxBuffers);  // plan files check it
  auto fixed_bytes = [&] {
    std::uint64_t acc = p.tm * p.tn * 4;
    // int32 C is stored from the accumulator: the next pass's MACs need the other one.
    const bool two_accumulators = (p.pk > 1 || prob.int32_out) && p.m_passes * p.n_passes * prob.groups > 1;
    std::uint64_t bytes = (two_accumulators ? 2 : 1) * acc + (prob.int32_out ? 0 : 2 * p.tm * p.tn);
    const std::uint64_t vectors = p.n_passes * prob.groups > 1 ? p.buffers : 1;  // buffers per vector
    if (prob.has_bias) bytes += vectors * p.tn * 4;
    if (prob.per_channel()) bytes += vectors * 2 * p.tn * 4;
    return bytes;
  };
  // Split C into passes until a pass's tile leaves room for a K step of at least 8, then
  // `pass_splits` more times. Each split halves the longer side, whatever the LM's size, so a
  // machine with more LM reaches every pass count a smaller one does.
  for (std::uint64_t splits = 0;;) {
    p.tm = ceil_div(prob.m, p.pm * p.m_passes);
    p.tn = round_up(ceil_div(prob.n, p.pn * p.n_passes), lm_words(m));
    std::uint64_t need =
        fixed_bytes() + p.buffers * (p.tm + p.tn) * std::min<std::uint64_t>(8, ceil_div(prob.k, p.pk));
    const bool fits = need <= lm;
    if (fits && splits >= tiling.pass_splits) break;
    if (p.tm == 1 && p.tn <= lm_words(m)) {
      if (fits)
        return Rejection{Prune::kNoFurtherSplit,
                         fmt::format("a 1×{} C tile splits no further into passes", p.tn)};
      return Rejection{Prune::kTileTooLarge,
                       fmt::format("a 1×{} C tile does not fit the {}-byte LM", p.tn, lm)};
    }
    if (fits) ++splits;
    if (p.tm >= p.tn || p.tn <= lm_words(m))  // a tile a word wide splits no further along N
      p.m_passes *= 2;
    else
      p.n_passes *= 2;
  }
  const std::uint64_t kk = ceil_div(prob.k, p.pk);
  // Packed W: kt is a whole number of packed rows, and each K element costs tn/t more bytes.
  const std::uint64_t t = prob.w_trits_per_byte, kt_unit = t > 0 ? std::lcm(lm_words(m), t) : lm_words(m);
  // Per K element: `buffers` A rows and B (or packed W) columns, and with W two decoded B buffers.
  const std::uint64_t nb = p.buffers;
  // A stationary operand keeps every K step's tile, where there are several passes to keep it over
  // (int8 B only: a packed W would need its decode per pass). Not where K is split: there a pass's
  // store waits for its reduce, and the loads issued after it for the store, a chain the estimate
  // does not price; without one operand's loads the passes look short and are not (die 1024³, K over
  // MAB and PE, 4×4 passes, stationary B: estimated 66,384 cycles, simulated 78,990; 78,464 without).
  // It takes K in at least `buffers` steps: the lookahead loads the next block's first steps into
  // their slots before the MACs of this block's last steps, which must not be the same slots.
  if (p.pk == 1 && ceil_div(kk, kt_unit) >= nb &&
      ((tiling.stationary == Stationary::kB && t == 0 && p.m_passes > 1) ||
       (tiling.stationary == Stationary::kA && p.n_passes > 1)))
    p.stationary = tiling.stationary;
  const std::uint64_t min_steps =
      p.stationary == Stationary::kNone ? tiling.min_steps : std::max(tiling.min_steps, nb);
  const std::uint64_t region = round_up(kk, kt_unit);  // K of a stationary region, whatever the step
  std::uint64_t kt_max = 0;
  if (p.stationary != Stationary::kNone) {
    // The stationary operand's region and the other's buffers.
    const bool a = p.stationary == Stationary::kA;
    const std::uint64_t kept = region * (a ? p.tm : p.tn), streamed = nb * (a ? p.tn : p.tm);
    kt_max = lm > fixed_bytes() + kept ? (lm - fixed_bytes() - kept) / streamed : 0;
  } else {
    kt_max = t > 0 ? (lm - fixed_bytes()) * t / (nb * t * p.tm + 2 * t * p.tn + nb * p.tn)
                   : (lm - fixed_bytes()) / (nb * (p.tm + p.tn));
  }
  // At least `min_steps` steps when K allows: more steps overlap more loads with MACs.
  p.steps = ceil_div(kk, std::max<std::uint64_t>(1, std::min({kk, kt_max, ceil_div(kk, min_steps)})));
  p.kt = round_up(ceil_div(kk, p.steps), kt_unit);  // even steps: the least padding
  // LM map. Each buffer starts on an LM address of its element type (words × element bytes), as a
  // load or store places lanes from an address on. The alignment gaps, and kt rounded up to a whole
  // word, may not fit what kt_max allowed: then kt shrinks by a word at a time.
  auto map_lm = [&] {
    p.steps = ceil_div(kk, p.kt);  // a whole-word kt can need fewer steps
    std::uint64_t at = 0;
    auto take = [&](std::uint64_t elements, std::uint64_t element_bytes) {
      at = round_up(at, lm_words(m) * element_bytes);
      std::uint64_t here = at;
      at += elements * element_bytes;
      return here;
    };
    p.lm_acc[0] = take(p.tm * p.tn, 4);
    p.lm_acc[1] = (p.pk > 1 || prob.int32_out) && p.m_passes * p.n_passes * prob.groups > 1
                      ? take(p.tm * p.tn, 4)
                      : p.lm_acc[0];
    if (prob.int32_out) {  // stored from the accumulators
      p.lm_out[0] = p.lm_acc[0], p.lm_out[1] = p.lm_acc[1];
    } else {
      p.lm_out[0] = take(p.tm * p.tn, 1);
      p.lm_out[1] = take(p.tm * p.tn, 1);
    }
    // `buffers` buffers per column vector when there are several column blocks, so that loading a
    // later block's does not wait for the last requant of this one, nor overwrite what it reads (the
    // lookahead loads up to buffers − 1 steps ahead, a pass ahead where a pass has one step).
    const std::uint64_t vectors = p.n_passes * prob.groups > 1 ? nb : 1;
    for (std::uint64_t v = 0; v < kMaxBuffers; ++v) {
      if (v >= vectors) {
        p.lm_bias[v] = p.lm_bias[0], p.lm_mult[v] = p.lm_mult[0], p.lm_shift[v] = p.lm_shift[0];
        continue;
      }
      if (prob.has_bias) p.lm_bias[v] = take(p.tn, 4);
      if (prob.per_channel()) {
        p.lm_mult[v] = take(p.tn, 4);
        p.lm_shift[v] = take(p.tn, 4);
      }
    }
    // A stationary operand: one slot per K step (kt and tn are whole words: B's slots stay
    // aligned; A's are placed as its buffers are).
    if (p.stationary == Stationary::kA) {
      p.slot = p.tm * p.kt;
      p.lm_a[0] = take(p.steps * p.slot, 1);
    } else {
      for (std::uint64_t b = 0; b < nb; ++b) p.lm_a[b] = take(p.tm * p.kt, 1);
    }
    if (p.stationary == Stationary::kB) {
      p.slot = p.kt * p.tn;
      p.lm_b[0] = take(p.steps * p.slot, 1);
    } else {
      for (std::uint64_t b = 0; b < (t > 0 ? 2 : nb); ++b) p.lm_b[b] = take(p.kt * p.tn, 1);
    }
    if (t > 0)
      for (std::uint64_t b = 0; b < nb; ++b) p.lm_w[b] = take(p.kt / t * p.tn, 1);
    return at;
  };
  // (A whole-word kt can also give a stationary operand fewer steps than it needs.)
  while ((map_lm() > lm || (p.stationary != Stationary::kNone && p.steps < min_steps)) && p.kt > kt_unit)
    p.kt -= kt_unit;
  p.lm_bytes = map_lm();
  // With several passes, a pass's C goes out in pieces spread over the next pass's steps, at most
  // one per step: the largest divisor of tm not above the step count.
  if (p.m_passes * p.n_passes * prob.groups > 1)
    for (std::uint64_t d = std::min(p.tm, p.steps); d >= 1; --d)
      if (p.tm % d == 0) {
        p.row_pieces = d;
        break;
      }
  if (p.lm_bytes > lm)
    return Rejection{Prune::kLmOverflow,
                     fmt::format("the plan needs {} LM bytes, the LM has {}", p.lm_bytes, lm)};
  return p;
}

QgemmPlan make_plan(const QgemmProblem& prob, const machine::MachineConfig& m, const Assignment& a,
                    const Tiling& tiling) {
  auto shaped = try_shape_plan(prob, m, a, tiling);
  if (auto* r = std::get_if<Rejection>(&shaped)) throw QgemmError(r->message);
  QgemmPlan p = std::get<QgemmPlan>(std::move(shaped));
  p.estimated_cycles = estimate_cycles(prob, p, m);
  return p;
}

std::string describe(const QgemmPlan& p, const machine::MachineConfig& m) {
  std::string levels;
  for (std::size_t l = 0; l < m.levels.size(); ++l)
    levels += fmt::format("{}{}→{}", l ? ", " : "", m.levels[l].name, dim_name(p.assignment, l));
  return fmt::format(
      "plan: {}; {}×{}×{} units on M×N×K; C tile {}×{} per PE in {}×{} passes{}; K in {} steps of {}{}{}{}; "
      "LM {} of {} bytes",
      levels, p.pm, p.pn, p.pk, p.tm, p.tn, p.m_passes, p.n_passes,
      p.row_pieces > 1 ? fmt::format(", stored in {} row pieces", p.row_pieces) : "", p.steps, p.kt,
      p.buffers != 2 ? fmt::format(" ({} buffers)", p.buffers) : "",
      p.stationary == Stationary::kB   ? ", B kept over the M passes"
      : p.stationary == Stationary::kA ? ", A kept over the N passes"
                                       : "",
      p.reduce_level.empty() ? "" : ", partial sums reduced at " + p.reduce_level, p.lm_bytes, m.lm_bytes());
}

}  // namespace treesim::kernels
