// The vector unit's arithmetic, defined once: the PE array runs these and the host references of
// the kernels that use the unit call the same per-value functions, so a run is bit-exact against
// its reference on every host with the same C library. Every result is IEEE binary32, rounded to
// nearest even:
//   add, sub, mul, div, max, min, sqrt, reciprocal: the IEEE binary32 operation (max and min of a
//     NaN give the other operand, as fmaxf and fminf);
//   exp, erf, rsqrt: the C library's binary64 function of the value (exp, erf, 1 / sqrt), rounded
//     once to binary32 (within an ulp of the exact value; docs/numerics.md);
//   row_sum: s = +0, then s = s + x[j] for j = 0, 1, ... in binary32 (left to right, as written);
//   row_max: m = x[0], then m = max(m, x[j]) for j = 1, 2, ...
#pragma once

#include <cstdint>

#include "sim/core/vector_op.h"

namespace treesim::numeric {

float vector_unary(core::VectorOp op, float x);                        // exp, erf, sqrt, rsqrt, reciprocal
float vector_binary(core::VectorOp op, float a, float b);              // add, sub, mul, div, max, min
float vector_row(core::VectorOp op, const float* x, std::uint64_t n);  // row_sum, row_max

// One `vector` instruction on one LM's float32 values (instruction.h gives the operand forms):
// a is rows×cols; b is rows×cols (form 0), one per row (1), one per column (2) or `imm` (3).
struct VectorShape {
  core::VectorOp op = core::VectorOp::kAdd;
  std::uint64_t rows = 1, cols = 0;
  int b_form = 0;
  float imm = 0;
};
void apply_vector(const VectorShape& s, const float* a, const float* b, float* dst);

}  // namespace treesim::numeric
