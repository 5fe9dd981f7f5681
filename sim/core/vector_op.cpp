#include "sim/core/vector_op.h"

namespace treesim::core {
namespace {

constexpr const char* kNames[kVectorOpCount] = {"add",        "sub",     "mul",    "div",  "max",
                                                "min",        "exp",     "erf",    "sqrt", "rsqrt",
                                                "reciprocal", "row_sum", "row_max"};

}  // namespace

const char* vector_op_name(VectorOp op) { return kNames[static_cast<std::size_t>(op)]; }

std::optional<VectorOp> parse_vector_op(std::string_view text) {
  for (std::size_t i = 0; i < kVectorOpCount; ++i)
    if (text == kNames[i]) return static_cast<VectorOp>(i);
  return std::nullopt;
}

bool is_binary(VectorOp op) {
  switch (op) {
    case VectorOp::kAdd:
    case VectorOp::kSub:
    case VectorOp::kMul:
    case VectorOp::kDiv:
    case VectorOp::kMax:
    case VectorOp::kMin:
      return true;
    default:
      return false;
  }
}

bool is_row_reduction(VectorOp op) { return op == VectorOp::kRowSum || op == VectorOp::kRowMax; }

bool needs_listed_cost(VectorOp op) {
  switch (op) {
    case VectorOp::kDiv:
    case VectorOp::kExp:
    case VectorOp::kErf:
    case VectorOp::kSqrt:
    case VectorOp::kRsqrt:
    case VectorOp::kReciprocal:
      return true;
    default:
      return false;
  }
}

}  // namespace treesim::core
