#include "sim/layout/matrix.h"

#include "sim/layout/diagnostic.h"
#include "sim/layout/parse.h"

namespace treesim::layout {
namespace {

SubAxis address(std::uint64_t size, std::uint64_t stride) {
  SubAxis s;
  s.size = size;
  s.target.kind = TargetKind::Addr;
  s.stride = stride;
  s.stride_written = true;
  return s;
}

SubAxis unwritten(std::uint64_t size, TargetKind kind, std::string level = "") {
  SubAxis s;
  s.size = size;
  s.target.kind = kind;
  s.target.level = std::move(level);
  return s;
}

SubAxis level_axis(const LevelSplit& l) {
  SubAxis s = unwritten(l.units, TargetKind::Level, l.level);
  s.stride = l.stride;
  s.stride_written = l.stride != 0;
  return s;
}

// `B@[...]` items sorted root first, as the parser keeps them.
std::vector<Broadcast> broadcasts(const std::vector<LevelSplit>& copies,
                                  const std::vector<std::string>& names) {
  std::vector<Broadcast> out;
  for (std::size_t level = 0; level < names.size(); ++level)
    for (const LevelSplit& c : copies)
      if (c.level == names[level]) {
        Broadcast b;
        b.level = c.level, b.size = c.units, b.stride = c.stride, b.stride_written = true;
        out.push_back(b);
      }
  return out;
}

std::uint64_t units(const std::vector<LevelSplit>& levels) {
  std::uint64_t n = 1;
  for (const LevelSplit& l : levels) n *= l.units;
  return n;
}

// Default strides filled as the parser fills them, and the canonical text as the source that a
// binding's diagnostics quote.
TensorLayout resolved(TensorLayout l, const std::vector<std::string>& level_names) {
  if (std::optional<Diagnostic> d = resolve_strides(l, level_names)) throw LayoutError(*d);
  l.source = to_string(l);
  return l;
}

}  // namespace

TensorLayout matrix(const MatrixSpec& spec, const std::vector<std::string>& level_names) {
  const std::uint64_t w = spec.words > 1 ? spec.words : 1, row_words = spec.c / w;
  TensorLayout l;
  l.axes.resize(2);
  std::vector<SubAxis>& rows = l.axes[0];
  std::vector<SubAxis>& cols = l.axes[1];
  if (spec.pieces > 1) rows.push_back(address(spec.pieces, spec.r * row_words));
  for (const LevelSplit& s : spec.row_levels) rows.push_back(level_axis(s));
  rows.push_back(address(spec.r, row_words));
  for (const LevelSplit& s : spec.col_levels) cols.push_back(level_axis(s));
  cols.push_back(address(row_words, 1));
  if (w > 1) cols.push_back(unwritten(w, TargetKind::Lane));
  const std::uint64_t padded_rows = spec.pieces * units(spec.row_levels) * spec.r;
  const std::uint64_t padded_cols = units(spec.col_levels) * spec.c;
  if (spec.rows != padded_rows || spec.cols != padded_cols)
    l.logical_shape = std::vector<std::uint64_t>{spec.rows, spec.cols};
  l.broadcasts = broadcasts(spec.copies, level_names);
  return resolved(std::move(l), level_names);
}

TensorLayout row_vector(std::uint64_t cols, const std::vector<LevelSplit>& col_levels, std::uint64_t c,
                        std::uint64_t words, const std::vector<std::string>& level_names,
                        const std::vector<LevelSplit>& copies) {
  const std::uint64_t w = words > 1 ? words : 1;
  TensorLayout l;
  l.axes.resize(1);
  for (const LevelSplit& s : col_levels) l.axes[0].push_back(level_axis(s));
  l.axes[0].push_back(address(c / w, 1));
  if (w > 1) l.axes[0].push_back(unwritten(w, TargetKind::Lane));
  if (cols != units(col_levels) * c) l.logical_shape = std::vector<std::uint64_t>{cols};
  l.broadcasts = broadcasts(copies, level_names);
  return resolved(std::move(l), level_names);
}

}  // namespace treesim::layout
