// The kernels `treesim run` (and any other driver) knows, in the order of kernels/registry.cpp.
#pragma once

#include <string>
#include <vector>

#include "kernels/kernel.h"

namespace treesim::kernels {

const std::vector<Kernel>& registry();
// nullptr when no kernel has this name.
const Kernel* find_kernel(const std::string& name);

}  // namespace treesim::kernels
