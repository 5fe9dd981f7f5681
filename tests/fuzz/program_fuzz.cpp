// Program text: every input either parses (and prints back to the same program) or fails with
// ProgramError; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "sim/program/program_text.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace program = treesim::program;
  try {
    const program::Program p =
        program::parse_program(std::string(reinterpret_cast<const char*>(data), size), "fuzz.txt");
    const std::string printed = program::print_program(p);
    if (program::print_program(program::parse_program(printed, "printed")) != printed) std::abort();
  } catch (const program::ProgramError&) {
  }
  return 0;
}
