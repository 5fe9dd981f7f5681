// Machine files (YAML): every input either loads or fails with MachineFileError; anything else
// (another exception, a crash, a sanitizer report) is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/machine/machine_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    treesim::machine::parse_machine_yaml(std::string(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
  } catch (const treesim::machine::MachineFileError&) {
  }
  return 0;
}
