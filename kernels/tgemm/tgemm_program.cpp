// The tgemm program: qgemm's software-pipelined schedule (kernels/qgemm/qgemm_program.cpp) with a
// decode stage. Per global step g (the steps of all passes in a row): the loads of step g+1 (packed
// W first, so that its decode need not wait for A's load, then A, into the other buffers), the MAC
// of step g, then the decode of step g+1's W tile into the other decoded buffer. The scoreboard
// makes decode g+1 wait for its load and for MAC g−1 (which read that buffer), so it overlaps MAC g;
// MAC g+1 waits for it.
#include <algorithm>
#include <map>
#include <tuple>

#include "kernels/tgemm/tgemm.h"
#include "sim/layout/parse.h"
#include "sim/timing/cost_model.h"

namespace treesim::kernels {
namespace {

using timing::ceil_div;

program::Level level_of(const std::string& name, const machine::MachineConfig& m) {
  if (name == "board") return program::Level{};
  return program::Level{static_cast<int>(*m.level_index(name))};
}

struct Pass {
  std::uint64_t m0 = 0, n0 = 0, bm = 0, bn = 0;
  std::uint64_t column_block = 0;
  bool first_of_column_block = false;
};

class Builder {
 public:
  Builder(const QgemmProblem& prob, const QgemmPlan& p, const machine::MachineConfig& m, WeightEncoding e)
      : prob_(prob), p_(p), m_(m), e_(e), t_(weights_per_byte(e)), packed_(p) {
    packed_.kt = p.kt / t_;  // W's tiles in byte rows
    const std::uint64_t block_m = p.pm * p.tm, block_n = p.pn * p.tn;
    for (std::uint64_t pn = 0; pn < p.n_passes && pn * block_n < prob.n; ++pn)
      for (std::uint64_t pm = 0; pm < p.m_passes && pm * block_m < prob.m; ++pm)
        passes_.push_back({pm * block_m, pn * block_n, std::min(block_m, prob.m - pm * block_m),
                           std::min(block_n, prob.n - pn * block_n), pn, pm == 0});
  }
  program::Program build();

 private:
  enum class Kind { kA, kW, kC, kVector };
  const layout::TensorLayout& layout(Kind kind, std::uint64_t rows, std::uint64_t cols,
                                     std::uint64_t pieces = 0);
  void load(const std::string& tensor, const layout::TensorLayout& l, std::uint64_t lm,
            std::vector<std::uint64_t> offset, std::vector<std::uint64_t> shape, std::int32_t pad);
  void loads(std::uint64_t step);
  void decode(std::uint64_t step);
  void mac(std::uint64_t step);
  void epilogue(std::uint64_t pass);
  void store(std::uint64_t pass, std::uint64_t first_piece, std::uint64_t end_piece);
  bool packed() const { return e_ != WeightEncoding::kInt8; }

  const QgemmProblem& prob_;
  const QgemmPlan& p_;
  const machine::MachineConfig& m_;
  WeightEncoding e_;
  std::uint64_t t_;
  QgemmPlan packed_;
  std::vector<Pass> passes_;
  std::map<std::tuple<Kind, std::uint64_t, std::uint64_t, std::uint64_t>, layout::TensorLayout> layouts_;
  program::Program prog_;
};

// Tile layouts, parsed once per distinct block shape.
const layout::TensorLayout& Builder::layout(Kind kind, std::uint64_t rows, std::uint64_t cols,
                                            std::uint64_t pieces) {
  const auto key = std::make_tuple(kind, rows, cols, pieces);
  if (auto it = layouts_.find(key); it != layouts_.end()) return it->second;
  std::string text;
  switch (kind) {
    case Kind::kA:
      text = tile_layout_a(p_, m_, rows, cols);
      break;
    case Kind::kW:
      text = tile_layout_b(packed() ? packed_ : p_, m_, rows, cols);
      break;
    case Kind::kC:
      text = tile_layout_c_pieces(p_, m_, pieces, rows, cols);
      break;
    case Kind::kVector:
      text = tile_layout_vector(p_, m_, cols);
      break;
  }
  return layouts_.emplace(key, layout::parse_layout_or_throw(text, m_)).first->second;
}

void Builder::load(const std::string& tensor, const layout::TensorLayout& l, std::uint64_t lm,
                   std::vector<std::uint64_t> offset, std::vector<std::uint64_t> shape, std::int32_t pad) {
  program::Load ld;
  ld.tensor = tensor;
  ld.layout = l;
  ld.lm = lm;
  ld.offset = std::move(offset);
  ld.shape = std::move(shape);
  ld.pad = pad;
  prog_.instrs.emplace_back(std::move(ld));
}

void Builder::loads(std::uint64_t step) {
  const Pass& ps = passes_[step / p_.steps];
  const std::uint64_t s = step % p_.steps;
  if (s == 0 && ps.first_of_column_block) {
    const layout::TensorLayout& vec = layout(Kind::kVector, 1, ps.bn);
    const std::size_t v = ps.column_block % 2;
    if (prob_.has_bias) load("bias", vec, p_.lm_bias[v], {ps.n0}, {ps.bn}, 0);
    if (prob_.per_channel()) {
      load("multiplier", vec, p_.lm_mult[v], {ps.n0}, {ps.bn}, 0);
      load("shift", vec, p_.lm_shift[v], {ps.n0}, {ps.bn}, 0);
    }
  }
  const std::uint64_t block_k = p_.pk * p_.kt, k0 = s * block_k, bk = std::min(block_k, prob_.k - k0);
  const std::size_t buf = step % 2;
  if (packed()) {
    // k0 is a whole number of byte rows (kt is a multiple of t); padding bytes are zero weights.
    const std::uint64_t rows = ceil_div(bk, t_);
    load("W", layout(Kind::kW, rows, ps.bn), p_.lm_w[buf], {k0 / t_, ps.n0}, {rows, ps.bn},
         zero_weights_byte(e_));
  } else {
    load("W", layout(Kind::kW, bk, ps.bn), p_.lm_b[buf], {k0, ps.n0}, {bk, ps.bn}, 0);
  }
  if (!p_.a_resident)  // resident A (a network's activation) is read in place
    load("A", layout(Kind::kA, ps.bm, bk), p_.lm_a[buf], {ps.m0, k0}, {ps.bm, bk}, prob_.a_zero);
}

void Builder::decode(std::uint64_t step) {
  if (!packed()) return;
  const std::size_t buf = step % 2;
  program::DptDecode d;
  d.src = p_.lm_w[buf], d.dst = p_.lm_b[buf];
  d.bytes = p_.kt / t_ * p_.tn;
  d.cols = p_.tn;
  d.codec = codec_of(e_);
  prog_.instrs.emplace_back(d);
}

void Builder::mac(std::uint64_t step) {
  const std::size_t buf = step % 2;
  program::TernaryMac mac;
  mac.a = p_.a_resident ? resident_a_tile(p_, passes_[step / p_.steps].m0, step % p_.steps) : p_.lm_a[buf];
  mac.w = p_.lm_b[buf], mac.c = p_.lm_acc[(step / p_.steps) % 2];
  mac.m = p_.tm, mac.n = p_.tn, mac.k = p_.kt;
  mac.a_dtype = prob_.a_dtype;
  mac.a_zero = prob_.a_zero;
  mac.accumulate = step % p_.steps > 0;
  prog_.instrs.emplace_back(mac);
}

void Builder::epilogue(std::uint64_t pass) {
  const std::uint64_t acc = p_.lm_acc[pass % 2];
  if (p_.pk > 1)
    prog_.instrs.emplace_back(program::Reduce{level_of(p_.reduce_level, m_), acc, acc, p_.tm * p_.tn});
  const std::size_t v = passes_[pass].column_block % 2;
  prog_.instrs.emplace_back(requant_of(prob_, p_, pass, v));
}

void Builder::store(std::uint64_t pass, std::uint64_t first_piece, std::uint64_t end_piece) {
  if (p_.c_resident) return;  // C stays in the LMs
  const Pass& ps = passes_[pass];
  const std::uint64_t tr = p_.tm / p_.row_pieces, piece_rows = p_.pm * tr;
  const std::uint64_t lo = first_piece * piece_rows;
  if (lo >= ps.bm || first_piece >= end_piece) return;
  const std::uint64_t rows = std::min(end_piece * piece_rows, ps.bm) - lo;
  program::Store st;
  st.tensor = "C";
  st.layout = layout(Kind::kC, rows, ps.bn, end_piece - first_piece);
  st.lm = p_.lm_out[pass % 2] + first_piece * tr * p_.tn;
  st.offset = {ps.m0 + lo, ps.n0};
  st.shape = {rows, ps.bn};
  prog_.instrs.emplace_back(st);
}

program::Program Builder::build() {
  const std::vector<std::uint64_t> w_shape{packed() ? ceil_div(prob_.k, t_) : prob_.k, prob_.n};
  prog_.tensors = {{"A", {prob_.m, prob_.k}, prob_.a_dtype},
                   {"W", w_shape, packed() ? core::DType::kUInt8 : core::DType::kInt8},
                   {"C", {prob_.m, prob_.n}, prob_.out_dtype()}};
  if (prob_.has_bias) prog_.tensors.push_back({"bias", {prob_.n}, core::DType::kInt32});
  if (prob_.per_channel()) {
    prog_.tensors.push_back({"multiplier", {prob_.n}, core::DType::kInt32});
    prog_.tensors.push_back({"shift", {prob_.n}, core::DType::kInt32});
  }
  const std::uint64_t steps = p_.steps, total = passes_.size() * steps, pieces = p_.row_pieces;
  if (total == 0) return std::move(prog_);
  loads(0);
  decode(0);
  std::uint64_t stored = 0;
  for (std::uint64_t g = 0; g < total; ++g) {
    const std::uint64_t pass = g / steps, s = g % steps;
    if (g + 1 < total) loads(g + 1);
    if (pass > 0) {
      const std::uint64_t due = (s + 1) * pieces / steps;
      if (s == 0) stored = 0;
      if (due > stored) store(pass - 1, stored, due);
      stored = std::max(stored, due);
    }
    mac(g);
    if (g + 1 < total) decode(g + 1);
    if (s + 1 == steps) epilogue(pass);
  }
  store(passes_.size() - 1, 0, pieces);
  return std::move(prog_);
}

}  // namespace

program::Program build_tgemm_program(const QgemmProblem& prob, const QgemmPlan& p,
                                     const machine::MachineConfig& m, WeightEncoding e) {
  check_problem(prob);
  return Builder(prob, p, m, e).build();
}

std::uint64_t weight_dram_bytes(const QgemmProblem& prob, const QgemmPlan& p, WeightEncoding e) {
  const std::uint64_t t = weights_per_byte(e), block_n = p.pn * p.tn, block_m = p.pm * p.tm;
  const std::uint64_t block_k = p.pk * p.kt;
  std::uint64_t rows = 0;  // W rows (bytes rows when packed) of one sweep over K
  for (std::uint64_t k0 = 0; k0 < prob.k; k0 += block_k) rows += ceil_div(std::min(block_k, prob.k - k0), t);
  std::uint64_t total = 0;
  for (std::uint64_t pn = 0; pn < p.n_passes && pn * block_n < prob.n; ++pn) {
    const std::uint64_t bn = std::min(block_n, prob.n - pn * block_n);
    for (std::uint64_t pm = 0; pm < p.m_passes && pm * block_m < prob.m; ++pm) total += rows * bn;
  }
  return total;
}

}  // namespace treesim::kernels
