// Memspec YAML (a banked DRAM device): every input either reads into a device or fails with a
// MachineFileError; anything else is a bug. Seeds: configs/memspec/*.yaml.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/machine/dram_yaml.h"
#include "sim/machine/machine_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace machine = treesim::machine;
  try {
    (void)machine::detail::parse_memspec(std::string(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
  } catch (const machine::MachineFileError&) {
  }
  return 0;
}
