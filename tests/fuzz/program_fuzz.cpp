// Program text with the mini machine's level names: every input either parses (and prints back
// to the same program) or fails with ProgramError; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/layout/parse.h"
#include "sim/machine/machine_file.h"
#include "sim/program/program_text.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace program = treesim::program;
  static const std::vector<std::string> levels = treesim::layout::level_names(
      treesim::machine::load_machine_file(TREESIM_SOURCE_DIR "/configs/mini.yaml"));
  try {
    const program::Program p =
        program::parse_program(std::string(reinterpret_cast<const char*>(data), size), "fuzz.txt", levels);
    if (program::parse_program(program::print_program(p, levels), "printed", levels) != p) std::abort();
  } catch (const program::ProgramError&) {
  }
  return 0;
}
