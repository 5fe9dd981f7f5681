// TensorLayout text against the mini machine: every input either parses (printing back to the
// same layout) or fails with a diagnostic; a parsed layout then binds to its own shape (the
// declared logical shape, else the padded one) or fails with a diagnostic. Anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "sim/layout/bound_layout.h"
#include "sim/layout/parse.h"
#include "sim/machine/machine_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace layout = treesim::layout;
  static const treesim::machine::MachineConfig mini =
      treesim::machine::load_machine_file(TREESIM_SOURCE_DIR "/configs/mini.yaml");
  const layout::ParseResult parsed =
      layout::parse_layout(std::string(reinterpret_cast<const char*>(data), size), mini);
  if (!parsed) {
    if (!parsed.error) std::abort();
    return 0;
  }
  if (layout::parse_layout(layout::to_string(*parsed.layout), mini).layout != parsed.layout) std::abort();
  const auto shape = parsed.layout->logical_shape.value_or(parsed.layout->padded_shape());
  const layout::BindResult bound = layout::bind_layout(*parsed.layout, shape, mini, 1);
  if (!bound && bound.validation.errors.empty()) std::abort();
  return 0;
}
