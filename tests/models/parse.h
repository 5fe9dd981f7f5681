// Program text parsed for the model tests, with the machine's level names.
#pragma once

#include <string>

#include "sim/layout/parse.h"
#include "sim/machine/machine_config.h"
#include "sim/program/program_text.h"

namespace treesim::testing {

inline program::Program parse(const std::string& text, const machine::MachineConfig& m) {
  return program::parse_program(text, "test", layout::level_names(m));
}

}  // namespace treesim::testing
