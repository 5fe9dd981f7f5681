#include "sim/numeric/vector_math.h"

#include <cmath>
#include <vector>

namespace treesim::numeric {

using core::VectorOp;

float vector_unary(VectorOp op, float x) {
  const double d = x;
  switch (op) {
    case VectorOp::kExp:
      return static_cast<float>(std::exp(d));
    case VectorOp::kErf:
      return static_cast<float>(std::erf(d));
    case VectorOp::kSqrt:
      return std::sqrt(x);
    case VectorOp::kRsqrt:
      return static_cast<float>(1.0 / std::sqrt(d));
    case VectorOp::kReciprocal:
      return 1.0f / x;
    default:
      return x;
  }
}

float vector_binary(VectorOp op, float a, float b) {
  switch (op) {
    case VectorOp::kAdd:
      return a + b;
    case VectorOp::kSub:
      return a - b;
    case VectorOp::kMul:
      return a * b;
    case VectorOp::kDiv:
      return a / b;
    case VectorOp::kMax:
      return std::fmax(a, b);
    case VectorOp::kMin:
      return std::fmin(a, b);
    default:
      return a;
  }
}

float vector_row(VectorOp op, const float* x, std::uint64_t n) {
  if (op == VectorOp::kRowMax) {
    float m = n ? x[0] : 0.0f;
    for (std::uint64_t j = 1; j < n; ++j) m = std::fmax(m, x[j]);
    return m;
  }
  float s = 0.0f;
  for (std::uint64_t j = 0; j < n; ++j) s += x[j];
  return s;
}

void apply_vector(const VectorShape& s, const float* a, const float* b, float* dst) {
  const std::uint64_t rows = s.rows, cols = s.cols;
  if (core::is_row_reduction(s.op)) {
    // Each row is read whole before its result is written (dst may be a).
    for (std::uint64_t r = 0; r < rows; ++r) dst[r] = vector_row(s.op, a + r * cols, cols);
    return;
  }
  if (!core::is_binary(s.op)) {
    for (std::uint64_t i = 0; i < rows * cols; ++i) dst[i] = vector_unary(s.op, a[i]);
    return;
  }
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t c = 0; c < cols; ++c) {
      const std::uint64_t i = r * cols + c;
      const float y = s.b_form == 0 ? b[i] : s.b_form == 1 ? b[r] : s.b_form == 2 ? b[c] : s.imm;
      dst[i] = vector_binary(s.op, a[i], y);
    }
}

}  // namespace treesim::numeric
