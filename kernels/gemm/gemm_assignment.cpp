// The level assignment that given layouts fix (--layout-a/-b/-c), for qgemm and tgemm alike.
#include <fmt/format.h>

#include "kernels/gemm/gemm.h"
#include "sim/layout/bound_layout.h"
#include "sim/layout/parse.h"

namespace treesim::kernels {

Assignment assignment_from_layouts(const QgemmProblem& prob, const machine::MachineConfig& m,
                                   const std::string& layout_a, const std::string& layout_b,
                                   const std::string& layout_c) {
  struct Digit {
    std::size_t level = 0;
    std::uint64_t size = 1, stride = 1;
  };
  struct Axes {
    std::vector<Assignment::Use> axis[2];
    std::vector<Digit> digits[2], copies;  // level sub-axes and B@[...] items, resolved strides
    bool given = false;
  };
  auto read = [&](const std::string& text, std::vector<std::uint64_t> shape, const char* option) {
    Axes out;
    if (text.empty()) return out;
    out.given = true;
    layout::TensorLayout l = layout::parse_layout_or_throw(text, m);
    // The whole operand need not fit the LM (the kernel streams tiles of it): check everything else.
    layout::bind_or_throw(l, shape, m, 1, layout::LmCapacity::kUnchecked);
    for (const auto& b : l.broadcasts) {
      const std::size_t level = *m.level_index(b.level);
      out.copies.push_back({level, b.whole_level ? m.levels[level].fanout : b.size, b.stride});
    }
    for (std::size_t d = 0; d < 2; ++d) {
      for (const auto& sub : l.axes[d]) {
        if (sub.target.kind == layout::TargetKind::Lane || sub.target.kind == layout::TargetKind::Time)
          throw QgemmError(fmt::format("{}: _W and _Time sub-axes are not supported by qgemm", option));
        if (sub.target.kind != layout::TargetKind::Level) continue;
        const std::size_t level = *m.level_index(sub.target.level);
        if (sub.size == 1 && m.levels[level].fanout > 1) continue;  // pinned to unit 0, not a split
        out.axis[d].push_back({level, sub.size});
        out.digits[d].push_back({level, sub.size, sub.stride});
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
      // M and N may share a level (Assignment): checked against the layouts' strides below.
      const bool shared = owner[u.level] && std::string(owner[u.level]) == "M" && std::string(dim) == "N";
      if (owner[u.level] && owner[u.level] != std::string(dim) && !shared)
        throw QgemmError(
            fmt::format("level {} distributes both {} and {}", m.levels[u.level].name, owner[u.level], dim));
      if (owner[u.level] && !shared)
        throw QgemmError(fmt::format("level {} appears twice for {}", m.levels[u.level].name, dim));
      owner[u.level] = dim;
    }
  }
  // A shared level lies as the kernel's layouts lay it (level_splits, shared_copies): its digits'
  // strides, and A copied over its N digit and B over its M digit; every other level is one digit
  // and copies nothing.
  auto expect = [&](const Axes& x, const char* option, const std::vector<layout::LevelSplit>& copies,
                    std::initializer_list<GemmDim> dims) {
    if (!x.given) return;
    auto digit_text = [&](const Digit& d) {
      return fmt::format("{}_{}:{}", d.size, m.levels[d.level].name, d.stride);
    };
    auto fail = [&](const std::string& what) {
      std::string want;
      for (const auto& c : copies)
        want += fmt::format("{}{}_{}:{}", want.empty() ? "" : ", ", c.units, c.level, c.stride);
      throw QgemmError(
          fmt::format("{}: {}; a level that splits M and N (u_m × u_n units) is written "
                      "u_m_L:u_n along M and u_n_L:1 along N{}",
                      option, what, want.empty() ? "" : ", and this operand copied B@[" + want + "]"));
    };
    int d = 0;
    for (const GemmDim dim : dims) {
      const std::vector<layout::LevelSplit> want = level_splits(out, dim, m);
      const std::vector<Digit>& given = x.digits[d++];
      for (std::size_t i = 0; i < given.size() && i < want.size(); ++i)
        if (want[i].stride != 0 && given[i].stride != want[i].stride)
          fail(fmt::format("{} has stride {}", digit_text(given[i]), given[i].stride));
    }
    if (copies.empty() && !x.copies.empty())
      throw QgemmError(
          fmt::format("{}: write no B@[...]: levels a GEMM layout does not name hold copies anyway", option));
    if (x.copies.size() != copies.size())
      fail(x.copies.empty() ? "no B@[...] copies" : fmt::format("{} B@[...] items", x.copies.size()));
    for (std::size_t i = 0; i < copies.size(); ++i)
      if (m.levels[x.copies[i].level].name != copies[i].level || x.copies[i].size != copies[i].units ||
          x.copies[i].stride != copies[i].stride)
        fail(fmt::format("B@[...] copies over {}", digit_text(x.copies[i])));
  };
  expect(a, "--layout-a", shared_copies(out, GemmDim::kN, m), {GemmDim::kM, GemmDim::kK});
  expect(b, "--layout-b", shared_copies(out, GemmDim::kM, m), {GemmDim::kK, GemmDim::kN});
  expect(c, "--layout-c", {}, {GemmDim::kM, GemmDim::kN});  // C names both digits: no copies
  return out;
}

}  // namespace treesim::kernels
