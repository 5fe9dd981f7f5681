// Quantization files (YAML): every input either parses or fails with QuantFileError; anything
// else is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/numeric/quant_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    treesim::numeric::parse_quant_yaml(std::string(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
  } catch (const treesim::numeric::QuantFileError&) {
  }
  return 0;
}
