#include "sim/program/instruction.h"

#include <type_traits>

namespace treesim::program {

std::size_t dtype_bytes(DType t) { return t == DType::kInt32 ? 4 : 1; }

const char* dtype_name(DType t) {
  switch (t) {
    case DType::kInt8:
      return "int8";
    case DType::kUInt8:
      return "uint8";
    case DType::kInt32:
      return "int32";
  }
  return "?";
}

bool parse_dtype(const std::string& text, DType& out) {
  if (text == "int8" || text == "s8")
    out = DType::kInt8;
  else if (text == "uint8" || text == "u8")
    out = DType::kUInt8;
  else if (text == "int32" || text == "s32")
    out = DType::kInt32;
  else
    return false;
  return true;
}

std::uint64_t TensorDecl::elements() const {
  std::uint64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::uint64_t TensorDecl::bytes() const { return elements() * dtype_bytes(dtype); }

const std::vector<std::string>& kind_names() {
  static const std::vector<std::string> kNames = {"load",        "store",   "mac",   "dpt_decode",
                                                  "ternary_mac", "requant", "copy",  "broadcast",
                                                  "scatter",     "gather",  "reduce"};
  return kNames;
}

const char* kind_name(const Instr& instr) { return kind_names()[instr.index()].c_str(); }

const TensorDecl* Program::find_tensor(const std::string& name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace treesim::program
