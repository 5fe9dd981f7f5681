// The machine files of configs/, loaded for tests.
#pragma once

#include <string>

#include "sim/machine/machine_file.h"
#include "tests/test_support.h"

namespace treesim::testing {

// configs/<name>.yaml, e.g. config("mncore-board").
inline machine::MachineConfig config(const std::string& name) {
  return machine::load_machine_file(source_path("configs/" + name + ".yaml"));
}
inline machine::MachineConfig mini() { return config("mini"); }

}  // namespace treesim::testing
