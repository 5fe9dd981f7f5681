// The operations of the PE's vector unit: one enum shared by the machine file (which prices each
// operation in pe.vector.ops) and the program (whose one `vector` instruction names an operation),
// so neither layer translates between names.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace treesim::core {

// Element-wise: add, sub, mul, div, max, min (binary), exp, erf, sqrt, rsqrt, reciprocal (unary);
// row reductions: sum and max of each row. Every operation is IEEE binary32 with round to nearest
// even (sim/numeric/vector_math.h gives each one's definition).
enum class VectorOp {
  kAdd,
  kSub,
  kMul,
  kDiv,
  kMax,
  kMin,
  kExp,
  kErf,
  kSqrt,
  kRsqrt,
  kReciprocal,
  kRowSum,
  kRowMax
};
inline constexpr std::size_t kVectorOpCount = 13;

// Program text and machine-file keys: "add", ..., "row_sum", "row_max".
const char* vector_op_name(VectorOp op);
std::optional<VectorOp> parse_vector_op(std::string_view text);
// Binary operations read a second operand; row reductions write one value per row.
bool is_binary(VectorOp op);
bool is_row_reduction(VectorOp op);
// The operations a machine must price in pe.vector.ops before a program may use them (the simple
// ones default to one value per lane and cycle, no extra latency).
bool needs_listed_cost(VectorOp op);

}  // namespace treesim::core
