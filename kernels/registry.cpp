// The list of kernels. Adding a kernel: a folder kernels/NAME/ that defines `Kernel NAME_kernel()`
// (namespace treesim::kernels), and one line below. No static registration: the list is data.
#include "kernels/registry.h"

// clang-format off
#define TREESIM_KERNELS(X) \
  X(qgemm)                 \
  X(tgemm)                 \
  X(relu)                  \
  X(chain)                 \
  X(spmv)                  \
  X(spmm)                  \
  X(conv2d)                \
  X(maxpool)               \
  X(avgpool)               \
  X(qadd)                  \
  X(softmax)               \
  /* one line per kernel, above this one */
// clang-format on

namespace treesim::kernels {

#define TREESIM_DECLARE_KERNEL(name) Kernel name##_kernel();
TREESIM_KERNELS(TREESIM_DECLARE_KERNEL)
#undef TREESIM_DECLARE_KERNEL

const std::vector<Kernel>& registry() {
#define TREESIM_KERNEL_ENTRY(name) name##_kernel(),
  static const std::vector<Kernel> kernels{TREESIM_KERNELS(TREESIM_KERNEL_ENTRY)};
#undef TREESIM_KERNEL_ENTRY
  return kernels;
}

const Kernel* find_kernel(const std::string& name) {
  for (const auto& k : registry())
    if (k.name == name) return &k;
  return nullptr;
}

}  // namespace treesim::kernels
