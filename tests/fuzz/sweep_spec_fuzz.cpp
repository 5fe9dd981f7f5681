// Sweep specs: every input either reads into a spec (its grid checked against the point cap) or is refused
// with a CliError of one line; anything else is a bug. The spec stands in configs/sweeps/, so a relative
// `machine: ../mini.yaml` finds a machine. Seeds: configs/sweeps/*.yaml and docs/examples' sweeps.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tools/cli.h"
#include "tools/sweep_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace tools = treesim::tools;
  try {
    (void)tools::parse_sweep_spec(std::string(reinterpret_cast<const char*>(data), size),
                                  TREESIM_SOURCE_DIR "/configs/sweeps/fuzz.yaml");
  } catch (const tools::CliError& e) {
    const std::string what = e.what();
    if (what.find('\n') != std::string::npos) __builtin_trap();  // one line, whatever the input held
  }
  return 0;
}
