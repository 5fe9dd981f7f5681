// Printing an encoding as MLIR writes it; the parser reads back exactly what this prints.
#include <fmt/format.h>

#include "sim/sparse/encoding.h"

namespace treesim::sparse {

std::string print_level_type(const LevelType& t) {
  std::string s;
  switch (t.format) {
    case LevelFormat::kDense:
      return "dense";
    case LevelFormat::kCompressed:
      s = "compressed";
      break;
    case LevelFormat::kLooseCompressed:
      s = "loose_compressed";
      break;
    case LevelFormat::kSingleton:
      s = "singleton";
      break;
    case LevelFormat::kNOutOfM:
      return fmt::format("block{}_{}", t.n, t.m);
  }
  if (t.nonunique && t.nonordered) return s + "(nonunique, nonordered)";
  if (t.nonunique) return s + "(nonunique)";
  if (t.nonordered) return s + "(nonordered)";
  return s;
}

namespace {

std::string print_expr(const Encoding& e, const LevelExpr& x) {
  const std::string& d = e.dims[x.dim];
  switch (x.op) {
    case ExprOp::kPlain:
      return d;
    case ExprOp::kFloorDiv:
      return fmt::format("{} floordiv {}", d, x.k);
    case ExprOp::kMod:
      return fmt::format("{} mod {}", d, x.k);
    case ExprOp::kCount:
      return fmt::format("{} * {} * {}", e.symbols.front(), x.k, d);
  }
  return d;
}

}  // namespace

std::string print_map(const Encoding& e) {
  std::string s;
  if (!e.symbols.empty()) s += fmt::format("[{}]", fmt::join(e.symbols, ", "));
  s += fmt::format("({}) -> (", fmt::join(e.dims, ", "));
  for (std::size_t l = 0; l < e.levels.size(); ++l)
    s += fmt::format("{}{} : {}", l ? ", " : "", print_expr(e, e.levels[l].expr),
                     print_level_type(e.levels[l].type));
  return s + ")";
}

std::string print_encoding(const Encoding& e) {
  std::string s = "#sparse_tensor.encoding<{ map = " + print_map(e);
  if (e.pos_width != 0) s += fmt::format(", posWidth = {}", e.pos_width);
  if (e.crd_width != 0) s += fmt::format(", crdWidth = {}", e.crd_width);
  return s + " }>";
}

}  // namespace treesim::sparse
