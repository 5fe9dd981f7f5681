// What a sweep can run: every kernel of the registry, and `run mlp` (a command of its own, whose
// options are declared here as a kernel's are, so that a spec is checked before any point runs).
#pragma once

#include <string>

#include "kernels/kernel.h"

namespace treesim::tools {

// The kernel `treesim run NAME` runs, or null. For "mlp": its options only (make_problem is null).
const kernels::Kernel* sweep_kernel(const std::string& name);

// Whether `treesim run NAME` takes --verify (run mlp verifies every batch unless --timing-only).
bool takes_verify(const kernels::Kernel& kernel);

}  // namespace treesim::tools
