// Layouts built as values: a kernel describes how a matrix lies over the tree and gets the
// TensorLayout the parser would give for the same text, without formatting or parsing any.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/layout/tensor_layout.h"

namespace treesim::layout {

// `units` units of a machine level (its name) along one matrix axis. A level split over both axes
// (or over one axis and copied over the rest) gives each of its digits a `stride` (unit index =
// Σ digit × stride); 0 = row-major over the level's digits as written, the parser's default.
struct LevelSplit {
  std::string level;
  std::uint64_t units = 1;
  std::uint64_t stride = 0;
};

// A rows×cols matrix whose rows split over `row_levels` (outermost first) and then `r` per unit, and
// whose columns over `col_levels` and then `c` per unit; each unit holds its r×c block row-major.
// With `pieces` > 1 the rows are that many such matrices one after the other, each unit holding its
// blocks one after the other. With `words` elements per LM address (c a multiple of it) a row's c
// elements fill c / words addresses lane by lane (`words_W` innermost), so that a block's bytes are
// contiguous. The matrix pads to pieces·Π(row units)·r × Π(col units)·c where it is smaller.
// `copies` replicate the matrix over part of a level that splits it elsewhere (`B@[u_L:stride]`,
// strides given): a level named nowhere holds a copy in every unit without one.
struct MatrixSpec {
  std::uint64_t rows = 0, cols = 0;
  std::vector<LevelSplit> row_levels, col_levels, copies;
  std::uint64_t r = 1, c = 1;
  std::uint64_t pieces = 1, words = 1;
};

// The layout of `spec`: the same value (and canonical text) as parsing
//   (rows,cols)/((pieces:r·c/words, <row levels>, r:c/words), (<col levels>, c/words:1, words_W))
// with the pad prefix, the pieces and the lanes only where they apply, and that text as its source.
// `level_names`: the machine's, root first. Whether the levels and sizes fit a machine is the
// binding's to check (bound_layout.h), as for parsed text.
TensorLayout matrix(const MatrixSpec& spec, const std::vector<std::string>& level_names);

// A `cols` vector laid out as one row of such a matrix: `(cols)/((<col levels>, c/words:1, words_W))`.
TensorLayout row_vector(std::uint64_t cols, const std::vector<LevelSplit>& col_levels, std::uint64_t c,
                        std::uint64_t words, const std::vector<std::string>& level_names,
                        const std::vector<LevelSplit>& copies = {});

}  // namespace treesim::layout
