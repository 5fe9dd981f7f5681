// Canonical printing (note §3). Strides are printed exactly when leaving them out would let the
// parser's row-major default pick something else, so parse(to_string(L)) == L.
#include <map>

#include "sim/layout/tensor_layout.h"

namespace treesim::layout {
namespace {

std::string target_key(const Target& t) {
  switch (t.kind) {
    case TargetKind::Addr:
      return "";
    case TargetKind::Level:
      return "L:" + t.level;
    case TargetKind::Lane:
      return "W";
    case TargetKind::Time:
      return "Time";
  }
  return "";
}

std::string suffix(const Target& t) {
  switch (t.kind) {
    case TargetKind::Addr:
      return "";
    case TargetKind::Level:
      return "_" + t.level;
    case TargetKind::Lane:
      return "_W";
    case TargetKind::Time:
      return "_Time";
  }
  return "";
}

}  // namespace

std::string to_string(const TensorLayout& layout) {
  std::map<std::string, int> per_target;
  for (const auto& axis : layout.axes)
    for (const auto& s : axis) ++per_target[target_key(s.target)];
  for (const auto& b : layout.broadcasts) ++per_target["L:" + b.level];

  std::string out;
  if (layout.logical_shape) {
    out += "(";
    for (std::size_t i = 0; i < layout.logical_shape->size(); ++i)
      out += (i ? "," : "") + std::to_string((*layout.logical_shape)[i]);
    out += ")/";
  }
  out += "(";
  for (std::size_t a = 0; a < layout.axes.size(); ++a) {
    out += a ? ", (" : "(";
    for (std::size_t k = 0; k < layout.axes[a].size(); ++k) {
      const SubAxis& s = layout.axes[a][k];
      if (k) out += ", ";
      out += std::to_string(s.size) + suffix(s.target);
      bool show = s.target.kind == TargetKind::Addr || per_target[target_key(s.target)] > 1 || s.stride != 1;
      if (show) out += ":" + std::to_string(s.stride);
    }
    out += ")";
  }
  if (!layout.broadcasts.empty()) {
    out += "; B@[";
    for (std::size_t i = 0; i < layout.broadcasts.size(); ++i) {
      const Broadcast& b = layout.broadcasts[i];
      if (i) out += ", ";
      if (b.whole_level) {
        out += b.level;
        continue;
      }
      out += std::to_string(b.size) + "_" + b.level;
      if (per_target["L:" + b.level] > 1 || b.stride != 1) out += ":" + std::to_string(b.stride);
    }
    out += "]";
  }
  return out + ")";
}

}  // namespace treesim::layout
