// Chain specs (`run chain --spec`, `tune chain`): every input either reads into a spec, which the
// feasibility checks of both commands then accept or refuse as error values, or is refused as an
// error value naming the file; a crash or an exception is a bug. Seeds: docs/examples/mlp.yaml and
// variants.
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/chain/chain.h"
#include "sim/machine/machine_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace kernels = treesim::kernels;
  static const treesim::machine::MachineConfig mini =
      treesim::machine::load_machine_file(TREESIM_SOURCE_DIR "/configs/mini.yaml");
  auto spec = kernels::parse_chain_spec(std::string(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
  if (!spec) {
    if (spec.errors().empty()) __builtin_trap();
    return 0;
  }
  (void)kernels::chain_spec_errors(spec.value(), mini, "fuzz.yaml");
  return 0;
}
