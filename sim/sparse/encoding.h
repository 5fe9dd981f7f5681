// MLIR's sparse_tensor encoding of a matrix, as a value: the dimension-to-level map (one affine
// level expression and one level type per storage level) and the position / coordinate widths.
// Parsed from and printed as MLIR writes it (notes: tensor-layout §8.1).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace treesim::sparse {

enum class LevelFormat { kDense, kCompressed, kLooseCompressed, kSingleton, kNOutOfM };

struct LevelType {
  LevelFormat format = LevelFormat::kDense;
  std::uint64_t n = 0, m = 0;  // n_out_of_m only: n stored entries per 1×m block
  bool nonunique = false;
  bool nonordered = false;
  bool operator==(const LevelType& o) const {
    return format == o.format && n == o.n && m == o.m && nonunique == o.nonunique &&
           nonordered == o.nonordered;
  }
};

enum class ExprOp { kPlain, kFloorDiv, kMod, kCount };

// `d`, `d floordiv k`, `d mod k`, or ELL's counting form `s * k * d` (s a symbol of the map).
struct LevelExpr {
  std::size_t dim = 0;
  ExprOp op = ExprOp::kPlain;
  std::uint64_t k = 0;
  bool operator==(const LevelExpr& o) const { return dim == o.dim && op == o.op && k == o.k; }
};

struct Level {
  LevelExpr expr;
  LevelType type;
  bool operator==(const Level& o) const { return expr == o.expr && type == o.type; }
};

struct Encoding {
  std::vector<std::string> symbols;  // `[c]` of ELL's counting form
  std::vector<std::string> dims;     // dimension variables as written: (i, j)
  std::vector<Level> levels;
  int pos_width = 0;  // 0 = native (64 bits)
  int crd_width = 0;
  bool operator==(const Encoding& o) const {
    return symbols == o.symbols && dims == o.dims && levels == o.levels && pos_width == o.pos_width &&
           crd_width == o.crd_width;
  }
  // Classic ELL: K slots per row (the map's counting form; tensor-layout §8.3).
  bool is_ell() const { return !symbols.empty(); }
};

// Parses `#sparse_tensor.encoding<{ map = ..., posWidth = 32, crdWidth = 16 }>`, the bare
// `map = ...` form, or a named shortcut (csr, csc, coo, dcsr, dcsc, bsr2x2, ell, 2:4, ...), and
// checks the map (every dimension recoverable, n_out_of_m rules, singleton after a nonunique level).
// Throws SparseError with a caret under the offending token.
Encoding parse_encoding(std::string_view text);

// MLIR's form: `#sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>`, with
// posWidth / crdWidth when not 0. print_encoding(parse_encoding(s)) == s for a printed s.
std::string print_encoding(const Encoding& e);
// Just the map: `(i, j) -> (i : dense, j : compressed)`.
std::string print_map(const Encoding& e);
std::string print_level_type(const LevelType& t);

// The named shortcuts and the encodings they stand for, in the order the docs list them.
struct Shortcut {
  std::string name;
  std::string text;
};
const std::vector<Shortcut>& shortcuts();

// Bits of a position / coordinate as stored: the width, or 64 when native (0).
inline int stored_bits(int width) { return width == 0 ? 64 : width; }

}  // namespace treesim::sparse
