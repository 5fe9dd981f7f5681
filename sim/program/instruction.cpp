#include "sim/program/instruction.h"

#include <type_traits>

namespace treesim::program {

std::uint64_t TensorDecl::elements() const {
  std::uint64_t n = 1;
  for (auto d : shape) {
    if (d != 0 && n > UINT64_MAX / d) return UINT64_MAX;
    n *= d;
  }
  return n;
}

std::uint64_t TensorDecl::bytes() const {
  const std::uint64_t n = elements(), size = core::dtype_bytes(dtype);
  return n > UINT64_MAX / size ? UINT64_MAX : n * size;
}

std::uint64_t Vector::b_values() const {
  if (!core::is_binary(op)) return 0;
  switch (b_form) {
    case VectorOperand::kMatrix:
      return rows * cols;
    case VectorOperand::kPerRow:
      return rows;
    case VectorOperand::kPerCol:
      return cols;
    case VectorOperand::kImmediate:
      return 0;
  }
  return 0;
}

const std::vector<std::string>& kind_names() {
  static const std::vector<std::string> kNames = {
      "load",    "store",     "mac",      "dpt_decode", "ternary_mac", "requant",
      "copy",    "broadcast", "scatter",  "gather",     "reduce",      "sparse_mac",
      "convert", "pool_max",  "pool_sum", "add",        "vector"};
  return kNames;
}

const char* kind_name(const Instr& instr) { return kind_names()[instr.index()].c_str(); }

const TensorDecl* Program::find_tensor(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace treesim::program
