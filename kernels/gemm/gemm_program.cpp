// The GEMM schedule. Holds on ports and units are granted in program order, so the order below is
// the schedule: it is software-pipelined across passes (see Builder::build).
#include "kernels/gemm/gemm_program.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "sim/timing/cost_model.h"

namespace treesim::kernels {
namespace {

using timing::ceil_div;

program::Load load(const std::string& tensor, const layout::TensorLayout& layout, std::uint64_t lm,
                   std::vector<std::uint64_t> offset, std::vector<std::uint64_t> shape, std::int32_t pad) {
  program::Load l;
  l.tensor = tensor;
  l.layout = layout;
  l.lm = lm;
  l.offset = std::move(offset);
  l.shape = std::move(shape);
  l.pad = pad;
  return l;
}

program::Level level_of(const std::string& name, const machine::MachineConfig& m) {
  if (name == "board") return program::Level{};
  return program::Level{static_cast<int>(*m.level_index(name))};
}

// The tile layouts, built once per distinct block shape: a large GEMM has thousands of loads but
// only the few shapes of its edge blocks. B's tiles are laid out by `b_plan` (the plan with K in
// B's rows: packed rows for a packed B).
class TileLayouts {
 public:
  enum class Kind { kA, kB, kC, kVector };
  TileLayouts(const QgemmPlan& p, QgemmPlan b_plan, const machine::MachineConfig& m)
      : p_(p), b_plan_(std::move(b_plan)), m_(m) {}

  // For C, `pieces` consecutive row pieces; the other kinds ignore it (and vectors `rows`).
  const layout::TensorLayout& get(Kind kind, std::uint64_t rows, std::uint64_t cols,
                                  std::uint64_t pieces = 0) {
    const auto key = std::make_tuple(kind, rows, cols, pieces);
    if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    layout::TensorLayout l;
    switch (kind) {
      case Kind::kA:
        l = tile_layout_a(p_, m_, rows, cols);
        break;
      case Kind::kB:
        l = tile_layout_b(b_plan_, m_, rows, cols);
        break;
      case Kind::kC:
        l = tile_layout_c_pieces(p_, m_, pieces, rows, cols);
        break;
      case Kind::kVector:
        l = tile_layout_vector(p_, m_, cols);
        break;
    }
    return cache_.emplace(key, std::move(l)).first->second;
  }

 private:
  const QgemmPlan& p_;
  QgemmPlan b_plan_;
  const machine::MachineConfig& m_;
  std::map<std::tuple<Kind, std::uint64_t, std::uint64_t, std::uint64_t>, layout::TensorLayout> cache_;
};

// One pass: a block of C in a group, whether it loads A and B (a stationary operand is loaded by the
// first pass that uses it), whether it loads its column block's per-column vectors (the first pass
// of that column block in a row) and into which of their buffers (in turn).
struct Pass {
  std::uint64_t m0 = 0, n0 = 0, bm = 0, bn = 0;
  std::uint64_t rows = 0;  // the tile rows its MACs compute (pass_tile_rows)
  bool loads_a = true, loads_b = true, loads_vectors = false;
  std::size_t vectors = 0;
  std::uint64_t group = 0;
};

// The passes in program order: per group, N blocks outer and M blocks inner, or with stationary A
// M blocks outer (so that a row block's N passes follow one another).
std::vector<Pass> passes_of(const QgemmProblem& prob, const QgemmPlan& p) {
  std::vector<Pass> out;
  const std::uint64_t block_m = p.pm * p.tm, block_n = p.pn * p.tn;
  const std::uint64_t mb = m_blocks(prob, p), nb = n_blocks(prob, p);
  const bool m_outer = p.stationary == Stationary::kA;
  std::size_t vector_loads = 0;
  std::uint64_t column = ~std::uint64_t{0};
  for (std::uint64_t g = 0; g < prob.groups; ++g)
    for (std::uint64_t outer = 0; outer < (m_outer ? mb : nb); ++outer)
      for (std::uint64_t inner = 0; inner < (m_outer ? nb : mb); ++inner) {
        const std::uint64_t pm = m_outer ? outer : inner, pn = m_outer ? inner : outer;
        Pass ps;
        ps.m0 = pm * block_m, ps.n0 = pn * block_n;
        ps.bm = std::min(block_m, prob.m - ps.m0), ps.bn = std::min(block_n, prob.n - ps.n0);
        ps.rows = pass_tile_rows(p, ps.bm);
        ps.loads_a = p.stationary != Stationary::kA || pn == 0;
        ps.loads_b = p.stationary != Stationary::kB || pm == 0;
        ps.group = g;
        const std::uint64_t this_column = g * nb + pn;
        ps.loads_vectors = this_column != column;
        if (ps.loads_vectors)
          ps.vectors = vector_loads++ % p.buffers;
        else
          ps.vectors = out.back().vectors;
        column = this_column;
        out.push_back(ps);
      }
  return out;
}

QgemmPlan b_rows_plan(const QgemmPlan& p, const BPath& b) {
  QgemmPlan out = p;
  out.kt = p.kt / b.weights_per_row();  // kt is a whole number of B rows
  return out;
}

class Builder {
 public:
  Builder(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m,
          const GemmOperands& ops, const BPath& b)
      : prob_(prob),
        p_(p),
        m_(m),
        ops_(ops),
        b_(b),
        layouts_(p, b_rows_plan(p, b), m),
        passes_(passes_of(prob, p)) {}

  program::Program build();

 private:
  void vectors(const Pass& ps);
  void load_a(const Pass& ps, std::uint64_t k0, std::uint64_t bk, std::uint64_t step);
  void load_b(const Pass& ps, std::uint64_t k0, std::uint64_t bk, std::uint64_t step);
  void loads(std::uint64_t step);
  void decode(std::uint64_t step);
  void mac(std::uint64_t step, std::uint64_t piece = 0, std::uint64_t pieces = 1);
  void epilogue(std::uint64_t pass, std::uint64_t piece = 0, std::uint64_t pieces = 1);
  void store(std::uint64_t pass, std::uint64_t first_piece, std::uint64_t end_piece);

  const QgemmProblem& prob_;
  const QgemmPlan& p_;
  const machine::MachineConfig& m_;
  const GemmOperands& ops_;
  const BPath& b_;
  TileLayouts layouts_;
  std::vector<Pass> passes_;
  program::Program prog_;
};

// The per-column vectors of a column block, into that block's buffers.
void Builder::vectors(const Pass& ps) {
  const layout::TensorLayout& vec = layouts_.get(TileLayouts::Kind::kVector, 1, ps.bn);
  const std::size_t v = ps.vectors;
  const std::uint64_t n0 = ps.group * prob_.n + ps.n0;
  if (prob_.has_bias) prog_.instrs.emplace_back(load("bias", vec, p_.lm_bias[v], {n0}, {ps.bn}, 0));
  if (prob_.per_channel()) {
    prog_.instrs.emplace_back(load("multiplier", vec, p_.lm_mult[v], {n0}, {ps.bn}, 0));
    prog_.instrs.emplace_back(load("shift", vec, p_.lm_shift[v], {n0}, {ps.bn}, 0));
  }
}

// Padding takes the zero point, so padded K terms add (Z − Z)·x = 0.
void Builder::load_a(const Pass& ps, std::uint64_t k0, std::uint64_t bk, std::uint64_t step) {
  const std::size_t buf = step % p_.buffers;  // of the halo patches
  if (ops_.a_window && ops_.a_in_lm) {        // the group's windows of the input where it lies in the LMs
    program::Convert a;
    a.tensor = "A";
    a.from = ops_.a_in_lm->layout;
    a.src = ops_.a_in_lm->lm;
    a.to = layouts_.get(TileLayouts::Kind::kA, ps.bm, bk);
    a.dst = a_tile_lm(p_, step);
    a.pad = prob_.a_zero;
    a.window = *ops_.a_window;
    a.window->c0 = ps.group * ops_.a_window->channels;
    a.view = ops_.a_shape;
    a.offset = {ps.m0, k0};
    a.shape = {ps.bm, bk};
    prog_.instrs.emplace_back(std::move(a));
  } else if (!p_.a_resident) {  // resident A (a network's activation) is read in place
    program::Load a = load("A", layouts_.get(TileLayouts::Kind::kA, ps.bm, bk), a_tile_lm(p_, step),
                           {ps.m0, k0}, {ps.bm, bk}, prob_.a_zero);
    if (ops_.a_window) {  // the group's windows of the input (im2col on the way in, or halos)
      a.window = *ops_.a_window;
      a.window->c0 = ps.group * ops_.a_window->channels;
      if (p_.lm_halo) a.halo = *p_.lm_halo + buf * p_.halo_patch;
    }
    prog_.instrs.emplace_back(std::move(a));
  }
}

// K range [k0, k0 + bk) is a whole number of B rows from k0 / t (kt is a multiple of t).
void Builder::load_b(const Pass& ps, std::uint64_t k0, std::uint64_t bk, std::uint64_t step) {
  const std::uint64_t t = b_.weights_per_row(), rows = ceil_div(bk, t);
  prog_.instrs.emplace_back(load(b_.tensor(), layouts_.get(TileLayouts::Kind::kB, rows, ps.bn),
                                 b_.load_lm(step), {k0 / t, ps.group * prob_.n + ps.n0}, {rows, ps.bn},
                                 b_.pad()));
}

// The loads of global step `step` (steps of all passes in a row); the first step of a column
// block first loads its per-column vectors.
void Builder::loads(std::uint64_t step) {
  const Pass& ps = passes_[step / p_.steps];
  const std::uint64_t s = step % p_.steps;
  if (s == 0 && ps.loads_vectors) vectors(ps);
  const std::uint64_t block_k = p_.pk * p_.kt, k0 = s * block_k, bk = std::min(block_k, prob_.k - k0);
  if (ps.loads_b && b_.loads_before_a()) load_b(ps, k0, bk, step);
  if (ps.loads_a) load_a(ps, k0, bk, step);
  if (ps.loads_b && !b_.loads_before_a()) load_b(ps, k0, bk, step);
}

void Builder::decode(std::uint64_t step) {
  if (auto d = b_.decode(step)) prog_.instrs.emplace_back(std::move(*d));
}

// The MACs of a step (the pass's tile rows: a ragged last M block's padding pieces are left out),
// or of its row piece `piece` of `pieces`: LM rows [piece·tm/pieces, …) of the A tile and of the
// accumulators (as C's row pieces lie).
void Builder::mac(std::uint64_t step, std::uint64_t piece, std::uint64_t pieces) {
  const std::uint64_t tr = p_.tm / pieces;
  MacTile t;
  t.a = (p_.a_resident ? resident_a_tile(p_, passes_[step / p_.steps].m0, step % p_.steps)
                       : a_tile_lm(p_, step)) +
        piece * tr * p_.kt;
  t.b = b_.mac_lm(step), t.c = p_.lm_acc[(step / p_.steps) % 2] + piece * tr * p_.tn * 4;
  t.m = pieces > 1 ? tr : passes_[step / p_.steps].rows, t.n = p_.tn, t.k = p_.kt;
  t.accumulate = step % p_.steps > 0;
  prog_.instrs.emplace_back(b_.mac(t));
}

// Reduce (where K is split) and requantize into the pass's output buffer: the whole tile, or its
// row piece `piece` of `pieces` (never where K is split: tail_pieces).
void Builder::epilogue(std::uint64_t pass, std::uint64_t piece, std::uint64_t pieces) {
  const std::uint64_t acc = p_.lm_acc[pass % 2], tr = p_.tm / pieces;
  const std::uint64_t rows = pieces > 1 ? tr : passes_[pass].rows;
  if (p_.pk > 1)  // in place: the sums land in the first PE of every subtree
    prog_.instrs.emplace_back(program::Reduce{level_of(p_.reduce_level, m_), acc, acc, rows * p_.tn});
  if (prob_.int32_out) return;  // C is the accumulators
  program::Requant rq = requant_of(prob_, p_, pass, passes_[pass].vectors);
  rq.src += piece * tr * p_.tn * 4;
  rq.dst += piece * tr * p_.tn * prob_.out_bytes();
  rq.rows = rows;
  if (!prob_.per_channel() && !ops_.group_multipliers.empty()) {
    const numeric::QuantizedMultiplier& q = ops_.group_multipliers[passes_[pass].group];
    rq.multiplier = {q.multiplier};
    rq.shift = {q.shift};
  }
  prog_.instrs.emplace_back(std::move(rq));
}

// One store of row pieces [first_piece, end_piece) of a pass: C rows
// [first_piece·pm·tr, end_piece·pm·tr) of its block (tr = tm / row_pieces), cut at the block's edge.
void Builder::store(std::uint64_t pass, std::uint64_t first_piece, std::uint64_t end_piece) {
  if (p_.c_resident) return;  // C stays in the LMs
  const Pass& ps = passes_[pass];
  const std::uint64_t tr = p_.tm / p_.row_pieces, piece_rows = p_.pm * tr;
  const std::uint64_t lo = first_piece * piece_rows;
  if (lo >= ps.bm || first_piece >= end_piece) return;  // only padding rows
  const std::uint64_t rows = std::min(end_piece * piece_rows, ps.bm) - lo;
  program::Store st;
  st.tensor = "C";
  st.layout = layouts_.get(TileLayouts::Kind::kC, rows, ps.bn, end_piece - first_piece);
  st.lm = p_.lm_out[pass % 2] + first_piece * tr * p_.tn * prob_.out_bytes();
  st.offset = {ps.m0 + lo, ps.group * prob_.n + ps.n0};
  st.shape = {rows, ps.bn};
  prog_.instrs.emplace_back(st);
}

// The schedule. Steps of all passes run as one stream through the buffers of each operand (two or
// three): the loads of step g + buffers − 1 come before the MAC of step g (they wait for MAC g − 1,
// which read their buffer), and B's decode of step g+1 (where B is packed) after it, so that it
// overlaps MAC g and waits for nothing but its load and MAC g−1. A pass's epilogue follows its last
// MAC, and its store is not issued there (it would take DRAM and the ports ahead of the next pass's
// loads while it waits for the requant): its row pieces go out spread over the next pass's steps,
// each after that step's lookahead loads, so the first steps of the next pass are loaded before any
// of it. The last pass's last step runs in tail pieces (tail_pieces): each piece's MACs, requant
// and store, so that its store overlaps the MACs of the pieces after it.
program::Program Builder::build() {
  const std::uint64_t columns = prob_.n * prob_.groups;
  prog_.tensors = {{"A",
                    ops_.a_in_lm    ? ops_.a_in_lm->shape
                    : ops_.a_window ? ops_.a_shape
                                    : std::vector<std::uint64_t>{prob_.m, prob_.k},
                    prob_.a_dtype},
                   {b_.tensor(), {ceil_div(prob_.k, b_.weights_per_row()), columns}, b_.dtype()},
                   {"C", {prob_.m, columns}, prob_.out_dtype()}};
  if (prob_.has_bias) prog_.tensors.push_back({"bias", {columns}, core::DType::kInt32});
  if (prob_.per_channel()) {
    prog_.tensors.push_back({"multiplier", {columns}, core::DType::kInt32});
    prog_.tensors.push_back({"shift", {columns}, core::DType::kInt32});
  }
  const std::uint64_t steps = p_.steps, total = passes_.size() * steps, pieces = p_.row_pieces;
  if (total == 0) return std::move(prog_);
  // The first buffers - 1 steps' loads, then per step those of the step buffers - 1 ahead.
  const std::uint64_t ahead = p_.buffers - 1;
  for (std::uint64_t g = 0; g < ahead && g < total; ++g) loads(g);
  decode(0);
  std::uint64_t stored = 0;  // pieces of the previous pass already issued
  for (std::uint64_t g = 0; g < total; ++g) {
    const std::uint64_t pass = g / steps, s = g % steps;
    if (g + ahead < total) loads(g + ahead);
    if (pass > 0) {
      // By the end of step s of this pass, (s + 1)/steps of the previous pass's pieces.
      const std::uint64_t due = (s + 1) * pieces / steps;
      if (s == 0) stored = 0;
      if (due > stored) store(pass - 1, stored, due);
      stored = std::max(stored, due);
    }
    if (g + 1 == total) break;  // the last step: below
    mac(g);
    decode(g + 1);
    if (s + 1 == steps) epilogue(pass);
  }
  // The last step in tail pieces, each stored as soon as it is requantized (whole: one piece).
  const std::uint64_t last = passes_.size() - 1, tail = tail_pieces(p_);
  for (std::uint64_t r = 0; r < tail && r * (p_.tm / tail) < passes_[last].rows; ++r) {
    mac(total - 1, r, tail);
    epilogue(last, r, tail);
    store(last, r * pieces / tail, (r + 1) * pieces / tail);
  }
  return std::move(prog_);
}

}  // namespace

program::Program build_gemm_program(const QgemmProblem& prob, const QgemmPlan& p,
                                    const machine::MachineConfig& m, const GemmOperands& operands,
                                    const BPath& b) {
  check_problem(prob);
  if (!operands.group_multipliers.empty() && operands.group_multipliers.size() != prob.groups)
    throw QgemmError(
        fmt::format("{} group multipliers for {} groups", operands.group_multipliers.size(), prob.groups));
  return Builder(prob, p, m, operands, b).build();
}

program::Requant requant_of(const QgemmProblem& prob, const QgemmPlan& p, std::uint64_t pass, std::size_t v) {
  program::Requant rq;
  rq.src = p.lm_acc[pass % 2];
  // Two output buffers: a pass's store overlaps the next pass. Resident C keeps every pass's tile,
  // in resident_layout_c's pass order.
  rq.dst = p.c_resident ? *p.c_resident + pass * p.tm * p.tn : p.lm_out[pass % 2];
  rq.rows = p.tm, rq.cols = p.tn;
  rq.has_bias = prob.has_bias;
  rq.bias = p.lm_bias[v];
  if (prob.per_channel()) {
    rq.params_in_lm = true;
    rq.multiplier_lm = p.lm_mult[v];
    rq.shift_lm = p.lm_shift[v];
  } else {
    rq.multiplier = {prob.out.multipliers[0].multiplier};
    rq.shift = {prob.out.multipliers[0].shift};
  }
  rq.out_zero = prob.out.out_zero_point;
  rq.out_dtype = prob.out_dtype();
  rq.act_min = prob.out.act_min;
  rq.act_max = prob.out.act_max;
  rq.rounding = prob.out.rounding;
  return rq;
}

program::Window whole_rows_window(std::uint64_t k) {
  program::Window w;
  w.channels = k;
  return w;
}

}  // namespace treesim::kernels
