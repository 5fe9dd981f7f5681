#include "kernels/operand_bytes.h"

#include <cstring>

namespace treesim::kernels {

std::vector<std::uint8_t> int32_bytes(const std::vector<std::int32_t>& v) {
  std::vector<std::uint8_t> out(v.size() * 4);
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

std::vector<std::int32_t> codes(const std::vector<std::uint8_t>& bytes, core::DType t) {
  std::vector<std::int32_t> out(bytes.size());
  for (std::size_t i = 0; i < bytes.size(); ++i)
    out[i] = t == core::DType::kUInt8 ? bytes[i] : static_cast<std::int8_t>(bytes[i]);
  return out;
}

}  // namespace treesim::kernels
