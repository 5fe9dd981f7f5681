// Plan files (a GEMM's, and a chain's) for mini: every input either reads into a plan file or is
// refused as an error value naming the file; a crash or an exception is a bug. Where a single plan
// reads, it is also turned into a plan for its own m, n and k, as `run qgemm --plan-file` does.
// Seeds: tests/data/plans/*.yaml.
#include <cstddef>
#include <cstdint>
#include <string>

#include "kernels/gemm/plan_file.h"
#include "sim/machine/machine_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace kernels = treesim::kernels;
  static const treesim::machine::MachineConfig mini =
      treesim::machine::load_machine_file(TREESIM_SOURCE_DIR "/configs/mini.yaml");
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto plan = kernels::parse_plan_file(text, "fuzz.yaml", mini);
  if (!plan && plan.errors().empty()) __builtin_trap();
  if (plan && plan->m > 0 && plan->n > 0 && plan->k > 0 && plan->m * plan->n * plan->k <= (1u << 24)) {
    kernels::QgemmProblem p;
    p.m = plan->m, p.n = plan->n, p.k = plan->k;
    auto made = kernels::plan_for(plan.value(), p, mini, "fuzz.yaml");
    if (!made && made.errors().empty()) __builtin_trap();
  }
  auto chain = kernels::parse_chain_plan_file(text, "fuzz.yaml", mini);
  if (!chain && chain.errors().empty()) __builtin_trap();
  return 0;
}
