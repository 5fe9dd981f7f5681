#include "sim/layout/tensor_layout.h"

#include <ostream>

namespace treesim::layout {

std::vector<std::uint64_t> TensorLayout::padded_shape() const {
  constexpr std::uint64_t kCap = std::uint64_t{1} << 63;
  std::vector<std::uint64_t> out;
  for (const auto& axis : axes) {
    std::uint64_t p = 1;
    for (const auto& s : axis) p = (s.size != 0 && p > kCap / s.size) ? kCap : p * s.size;
    out.push_back(p);
  }
  return out;
}

bool TensorLayout::has_target(TargetKind kind) const {
  for (const auto& axis : axes)
    for (const auto& s : axis)
      if (s.target.kind == kind) return true;
  return kind == TargetKind::Level && !broadcasts.empty();
}

bool operator==(const SubAxis& a, const SubAxis& b) {
  return a.size == b.size && a.target == b.target && a.stride == b.stride;
}

bool operator==(const Broadcast& a, const Broadcast& b) {
  return a.level == b.level && a.whole_level == b.whole_level && a.size == b.size && a.stride == b.stride;
}

bool operator==(const TensorLayout& a, const TensorLayout& b) {
  return a.logical_shape == b.logical_shape && a.axes == b.axes && a.broadcasts == b.broadcasts;
}

std::ostream& operator<<(std::ostream& out, const TensorLayout& layout) { return out << to_string(layout); }

std::string shape_string(const std::vector<std::uint64_t>& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? "," : "") + std::to_string(shape[i]);
  return out + ")";
}

}  // namespace treesim::layout
