#include "sim/program/relocate.h"

#include <algorithm>
#include <type_traits>
#include <variant>

namespace treesim::program {

Program relocate_lm(Program program, std::uint64_t offset) {
  for (Instr& instr : program.instrs)
    std::visit(
        [offset](auto& op) {
          using T = std::decay_t<decltype(op)>;
          if constexpr (std::is_same_v<T, Load>) {
            op.lm += offset;
            if (op.halo) *op.halo += offset;
          } else if constexpr (std::is_same_v<T, Store>) {
            op.lm += offset;
          } else if constexpr (std::is_same_v<T, Mac> || std::is_same_v<T, SparseMac>) {
            op.a += offset, op.b += offset, op.c += offset;
          } else if constexpr (std::is_same_v<T, TernaryMac>) {
            op.a += offset, op.w += offset, op.c += offset;
          } else if constexpr (std::is_same_v<T, QuantAdd> || std::is_same_v<T, Vector>) {
            op.a += offset, op.b += offset, op.dst += offset;
          } else if constexpr (std::is_same_v<T, Requant>) {
            op.src += offset, op.dst += offset;
            if (op.has_bias) op.bias += offset;
            if (op.params_in_lm) op.multiplier_lm += offset, op.shift_lm += offset;
          } else {  // Convert, DptDecode, Copy, PoolMax, PoolSum and the collectives: src and dst
            op.src += offset, op.dst += offset;
          }
        },
        instr);
  return program;
}

std::uint64_t lm_extent(const CheckedProgram& checked) {
  std::uint64_t end = 0;
  for (const PreparedInstr& p : checked.instrs)
    for (const auto* ranges : {&p.reads, &p.writes})
      for (const timing::Range& r : *ranges)
        if (r.space == kLmSpace) end = std::max(end, r.hi);
  return end;
}

}  // namespace treesim::program
