// Parsing PFN's TensorLayout notation (grammar: the design notes, tensor-layout §3). Level names
// come from the machine (`_L2B` is only a level if the machine has an L2B); `W` and `Time` are
// always the lane and time targets. Parsing also resolves the row-major default strides (§4.2), so a
// parsed layout has every stride filled in and prints canonically.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/layout/diagnostic.h"
#include "sim/layout/tensor_layout.h"
#include "sim/machine/machine_config.h"

namespace treesim::layout {

// The largest size or stride a layout holds: larger parsed values are refused, and computed strides
// saturate here.
inline constexpr std::uint64_t kMaxValue = std::uint64_t{1} << 62;

// Either a layout or the first syntax error (E001–E006, E010, E020, E021, E110, E111).
struct ParseResult {
  std::optional<TensorLayout> layout;
  std::optional<Diagnostic> error;
  explicit operator bool() const { return layout.has_value(); }
};

// `level_names`: the machine's levels, root first (their order sorts the broadcast list).
ParseResult parse_layout(const std::string& text, const std::vector<std::string>& level_names);
ParseResult parse_layout(const std::string& text, const machine::MachineConfig& machine);
// Throws LayoutError with the diagnostic.
TensorLayout parse_layout_or_throw(const std::string& text, const machine::MachineConfig& machine);

std::vector<std::string> level_names(const machine::MachineConfig& machine);

// Fills default strides (row-major compact per target over its sub-axes in textual order, broadcast
// items last) and checks the all-or-none rules (E110, E111); sorts broadcasts by level. The parser
// calls it; code that builds layouts by hand may too.
std::optional<Diagnostic> resolve_strides(TensorLayout& layout, const std::vector<std::string>& level_names);

}  // namespace treesim::layout
