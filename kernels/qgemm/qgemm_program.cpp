// The qgemm program: per pass over C blocks, stream K in double-buffered steps (load A and B
// tiles, MAC), reduce partial sums where K is split, requantize, store the C block.
#include <algorithm>

#include <fmt/format.h>

#include "kernels/qgemm/qgemm.h"
#include "sim/layout/bound_layout.h"
#include "sim/layout/parse.h"

namespace treesim::kernels {
namespace {

program::Load load(const std::string& tensor, layout::TensorLayout layout, std::uint64_t lm,
                   std::vector<std::uint64_t> offset, std::vector<std::uint64_t> shape, std::int32_t pad) {
  program::Load l;
  l.tensor = tensor;
  l.layout = std::move(layout);
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

}  // namespace

program::Program build_program(const QgemmProblem& prob, const QgemmPlan& p,
                               const machine::MachineConfig& m) {
  check_problem(prob);
  const core::DType out_dtype = prob.out_dtype();
  program::Program prog;
  prog.tensors = {{"A", {prob.m, prob.k}, prob.a_dtype},
                  {"B", {prob.k, prob.n}, prob.b_dtype},
                  {"C", {prob.m, prob.n}, out_dtype}};
  if (prob.has_bias) prog.tensors.push_back({"bias", {prob.n}, core::DType::kInt32});
  if (prob.per_channel()) {
    prog.tensors.push_back({"multiplier", {prob.n}, core::DType::kInt32});
    prog.tensors.push_back({"shift", {prob.n}, core::DType::kInt32});
  }
  const std::uint64_t block_m = p.pm * p.tm, block_n = p.pn * p.tn, block_k = p.pk * p.kt;
  std::uint64_t step = 0, pass = 0;
  for (std::uint64_t pn = 0; pn < p.n_passes; ++pn) {
    const std::uint64_t n0 = pn * block_n;
    if (n0 >= prob.n) break;
    const std::uint64_t bn = std::min(block_n, prob.n - n0);
    // Per-column vectors of this block of columns.
    const layout::TensorLayout vec = layout::parse_layout_or_throw(tile_layout_vector(p, m, bn), m);
    if (prob.has_bias) prog.instrs.emplace_back(load("bias", vec, p.lm_bias, {n0}, {bn}, 0));
    if (prob.per_channel()) {
      prog.instrs.emplace_back(load("multiplier", vec, p.lm_mult, {n0}, {bn}, 0));
      prog.instrs.emplace_back(load("shift", vec, p.lm_shift, {n0}, {bn}, 0));
    }
    for (std::uint64_t pm = 0; pm < p.m_passes; ++pm) {
      const std::uint64_t m0 = pm * block_m;
      if (m0 >= prob.m) break;
      const std::uint64_t bm = std::min(block_m, prob.m - m0);
      for (std::uint64_t s = 0; s < p.steps; ++s, ++step) {
        const std::uint64_t k0 = s * block_k;
        const std::uint64_t bk = std::min(block_k, prob.k - k0);
        const int buf = static_cast<int>(step % 2);
        // Padding takes the zero point, so padded K terms add (Z − Z)·x = 0.
        prog.instrs.emplace_back(load("A", layout::parse_layout_or_throw(tile_layout_a(p, m, bm, bk), m),
                                      p.lm_a[buf], {m0, k0}, {bm, bk}, prob.a_zero));
        prog.instrs.emplace_back(load("B", layout::parse_layout_or_throw(tile_layout_b(p, m, bk, bn), m),
                                      p.lm_b[buf], {k0, n0}, {bk, bn}, prob.b_zero));
        program::Mac mac;
        mac.a = p.lm_a[buf], mac.b = p.lm_b[buf], mac.c = p.lm_acc;
        mac.m = p.tm, mac.n = p.tn, mac.k = p.kt;
        mac.a_dtype = prob.a_dtype, mac.b_dtype = prob.b_dtype;
        mac.a_zero = prob.a_zero, mac.b_zero = prob.b_zero;
        mac.accumulate = s > 0;
        prog.instrs.emplace_back(mac);
      }
      if (p.pk > 1)
        prog.instrs.emplace_back(
            program::Reduce{level_of(p.reduce_level, m), p.lm_acc, p.lm_reduced, p.tm * p.tn});
      program::Requant rq;
      rq.src = p.lm_reduced;
      rq.dst = p.lm_out[pass % 2];  // two output buffers: a pass's store overlaps the next pass
      rq.rows = p.tm, rq.cols = p.tn;
      rq.has_bias = prob.has_bias;
      rq.bias = p.lm_bias;
      if (prob.per_channel()) {
        rq.params_in_lm = true;
        rq.multiplier_lm = p.lm_mult;
        rq.shift_lm = p.lm_shift;
      } else {
        rq.multiplier = {prob.out.multipliers[0].multiplier};
        rq.shift = {prob.out.multipliers[0].shift};
      }
      rq.out_zero = prob.out.out_zero_point;
      rq.out_dtype = out_dtype;
      rq.act_min = prob.out.act_min;
      rq.act_max = prob.out.act_max;
      rq.rounding = prob.out.rounding;
      prog.instrs.emplace_back(rq);
      program::Store st;
      st.tensor = "C";
      st.layout = layout::parse_layout_or_throw(tile_layout_c(p, m, bm, bn), m);
      st.lm = p.lm_out[pass % 2];
      st.offset = {m0, n0};
      st.shape = {bm, bn};
      prog.instrs.emplace_back(st);
      ++pass;
    }
  }
  return prog;
}

Assignment assignment_from_layouts(const QgemmProblem& prob, const machine::MachineConfig& m,
                                   const std::string& layout_a, const std::string& layout_b,
                                   const std::string& layout_c) {
  // The whole operand need not fit the LM (the kernel streams tiles of it): check everything else.
  machine::MachineConfig roomy = m;
  roomy.levels.back().memory_bytes = std::uint64_t{1} << 62;
  struct Axes {
    std::vector<Assignment::Use> axis[2];
    bool given = false;
  };
  auto read = [&](const std::string& text, std::vector<std::uint64_t> shape, const char* option) {
    Axes out;
    if (text.empty()) return out;
    out.given = true;
    layout::TensorLayout l = layout::parse_layout_or_throw(text, m);
    layout::bind_or_throw(l, shape, roomy, 1);
    if (!l.broadcasts.empty())
      throw QgemmError(
          fmt::format("{}: write no B@[...]: levels a GEMM layout does not name hold copies anyway", option));
    for (std::size_t d = 0; d < 2; ++d) {
      for (const auto& sub : l.axes[d]) {
        if (sub.target.kind == layout::TargetKind::Lane || sub.target.kind == layout::TargetKind::Time)
          throw QgemmError(fmt::format("{}: _W and _Time sub-axes are not supported by qgemm", option));
        if (sub.target.kind != layout::TargetKind::Level) continue;
        const std::size_t level = *m.level_index(sub.target.level);
        if (sub.size == 1 && m.levels[level].fanout > 1) continue;  // pinned to unit 0, not a split
        out.axis[d].push_back({level, sub.size});
      }
    }
    return out;
  };
  Axes a = read(layout_a, {prob.m, prob.k}, "--layout-a");
  Axes b = read(layout_b, {prob.k, prob.n}, "--layout-b");
  Axes c = read(layout_c, {prob.m, prob.n}, "--layout-c");
  auto text = [&](const std::vector<Assignment::Use>& uses) {
    std::string s;
    for (const auto& u : uses)
      s += fmt::format("{}{}_{}", s.empty() ? "" : ", ", u.size, m.levels[u.level].name);
    return "(" + s + ")";
  };
  auto agree = [&](const Axes& x, int dx, const char* nx, const Axes& y, int dy, const char* ny,
                   const char* dim) {
    if (x.given && y.given && !(x.axis[dx] == y.axis[dy]))
      throw QgemmError(fmt::format("{} axis {} distributes {} over {} but {} axis {} over {}", nx, dx, dim,
                                   text(x.axis[dx]), ny, dy, text(y.axis[dy])));
  };
  agree(a, 0, "--layout-a", c, 0, "--layout-c", "M");
  agree(a, 1, "--layout-a", b, 0, "--layout-b", "K");
  agree(b, 1, "--layout-b", c, 1, "--layout-c", "N");
  Assignment out;
  out.fixed_m = a.given || c.given;
  out.fixed_k = a.given || b.given;
  out.fixed_n = b.given || c.given;
  out.m = a.given ? a.axis[0] : c.axis[0];
  out.k = a.given ? a.axis[1] : b.axis[0];
  out.n = b.given ? b.axis[1] : c.axis[1];
  std::vector<const char*> owner(m.levels.size(), nullptr);
  for (auto [list, dim] : {std::pair{&out.m, "M"}, std::pair{&out.n, "N"}, std::pair{&out.k, "K"}}) {
    for (const auto& u : *list) {
      if (owner[u.level] && owner[u.level] != std::string(dim))
        throw QgemmError(
            fmt::format("level {} distributes both {} and {}", m.levels[u.level].name, owner[u.level], dim));
      if (owner[u.level])
        throw QgemmError(fmt::format("level {} appears twice for {}", m.levels[u.level].name, dim));
      owner[u.level] = dim;
    }
  }
  return out;
}

}  // namespace treesim::kernels
