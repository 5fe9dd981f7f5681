#include "tools/cli.h"

#include <iostream>

#include "sim/io/atomic_file.h"
#include "sim/machine/machine_file.h"

namespace treesim::tools {

machine::MachineConfig load_machine_or_throw(const std::string& path) {
  // Every caller's path is --machine's (a sweep spec's `machine:` is never empty).
  if (path.empty()) throw CliError("--machine: expected a machine file (YAML), got an empty path");
  try {
    return machine::load_machine_file(path);
  } catch (const machine::MachineFileError& e) {
    throw CliError(e.what());
  }
}

void emit(const std::string& text, const std::string& path) {
  if (path.empty() || path == "-") {
    std::cout << text;
    std::cout.flush();
    return;
  }
  try {
    io::write_file_atomically(path, text);
  } catch (const std::runtime_error& e) {
    throw CliError(e.what());
  }
}

}  // namespace treesim::tools
