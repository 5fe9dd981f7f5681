#include "sim/program/instr_label.h"

#include <fmt/format.h>

namespace treesim::program {
namespace {

// `A[0:64,0:32]`: the block's rows and columns as half-open ranges (the whole tensor when no block).
std::string block_text(const Program& program, const std::string& tensor,
                       const std::vector<std::uint64_t>& offset, const std::vector<std::uint64_t>& shape) {
  std::vector<std::uint64_t> lo = offset, size = shape;
  if (size.empty()) {
    if (const TensorDecl* t = program.find_tensor(tensor)) size = t->shape;
  }
  lo.resize(size.size(), 0);
  std::string out = tensor + "[";
  for (std::size_t d = 0; d < size.size(); ++d)
    out += fmt::format("{}{}:{}", d ? "," : "", lo[d], lo[d] + size[d]);
  return out + "]";
}

std::string level_text(const Level& level, const std::vector<std::string>& names) {
  if (level.is_board() || level.index >= static_cast<int>(names.size())) return "board";
  return names[static_cast<std::size_t>(level.index)];
}

}  // namespace

std::string instr_label(const Program& program, std::size_t index,
                        const std::vector<std::string>& level_names) {
  const Instr& instr = program.instrs.at(index);
  const std::string head = fmt::format("{}#{}:", kind_name(instr), index);
  return head + std::visit(
                    [&](const auto& op) -> std::string {
                      using T = std::decay_t<decltype(op)>;
                      if constexpr (std::is_same_v<T, Load> || std::is_same_v<T, Store>)
                        return block_text(program, op.tensor, op.offset, op.shape);
                      else if constexpr (std::is_same_v<T, Convert>)
                        return block_text(program, op.tensor, op.offset, op.shape);  // a window's block
                      else if constexpr (std::is_same_v<T, Mac> || std::is_same_v<T, TernaryMac>)
                        return fmt::format("{}x{}x{}", op.m, op.n, op.k);
                      else if constexpr (std::is_same_v<T, SparseMac>)
                        return fmt::format("{}x{}", op.c_rows, op.n);
                      else if constexpr (std::is_same_v<T, PoolMax> || std::is_same_v<T, PoolSum>)
                        return fmt::format("{}x{}x{}", op.rows, op.channels, op.taps);
                      else if constexpr (std::is_same_v<T, QuantAdd>)
                        return fmt::format("{}", op.count);
                      else if constexpr (std::is_same_v<T, Vector>)
                        return fmt::format("{}:{}x{}", core::vector_op_name(op.op), op.rows, op.cols);
                      else if constexpr (std::is_same_v<T, Requant>)
                        return fmt::format("{}x{}", op.rows, op.cols);
                      else if constexpr (std::is_same_v<T, DptDecode> || std::is_same_v<T, Copy>)
                        return fmt::format("{}B", op.bytes);
                      else if constexpr (std::is_same_v<T, Reduce>)
                        return fmt::format("{}:{}x4B{}", level_text(op.level, level_names), op.count,
                                           op.op == ReduceOp::kMax ? ":max" : "");
                      else
                        return fmt::format("{}:{}B", level_text(op.level, level_names), op.bytes);
                    },
                    instr);
}

}  // namespace treesim::program
