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
  for (const LevelSplit& s : spec.row_levels) rows.push_back(unwritten(s.units, TargetKind::Level, s.level));
  rows.push_back(address(spec.r, row_words));
  for (const LevelSplit& s : spec.col_levels) cols.push_back(unwritten(s.units, TargetKind::Level, s.level));
  cols.push_back(address(row_words, 1));
  if (w > 1) cols.push_back(unwritten(w, TargetKind::Lane));
  const std::uint64_t padded_rows = spec.pieces * units(spec.row_levels) * spec.r;
  const std::uint64_t padded_cols = units(spec.col_levels) * spec.c;
  if (spec.rows != padded_rows || spec.cols != padded_cols)
    l.logical_shape = std::vector<std::uint64_t>{spec.rows, spec.cols};
  return resolved(std::move(l), level_names);
}

TensorLayout row_vector(std::uint64_t cols, const std::vector<LevelSplit>& col_levels, std::uint64_t c,
                        std::uint64_t words, const std::vector<std::string>& level_names) {
  const std::uint64_t w = words > 1 ? words : 1;
  TensorLayout l;
  l.axes.resize(1);
  for (const LevelSplit& s : col_levels) l.axes[0].push_back(unwritten(s.units, TargetKind::Level, s.level));
  l.axes[0].push_back(address(c / w, 1));
  if (w > 1) l.axes[0].push_back(unwritten(w, TargetKind::Lane));
  if (cols != units(col_levels) * c) l.logical_shape = std::vector<std::uint64_t>{cols};
  return resolved(std::move(l), level_names);
}

}  // namespace treesim::layout
