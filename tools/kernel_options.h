// A kernel's options (declared as data, kernels/kernel.h) as command-line options: shared by
// `treesim run KERNEL` and `treesim tune KERNEL`.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "kernels/kernel.h"
#include "tools/cli.h"

namespace treesim::tools {

// Where CLI11 puts one kernel option's value: text for every kind, converted, range-checked and
// defaulted by kernels::parse_options exactly as for any other driver.
struct BoundOption {
  std::string text;
  bool flag = false;
  CLI::Option* option = nullptr;
};

// Adds every option of `kernel` to `cmd`; `bound` is sized here and must not be resized after.
void bind_kernel_options(CLI::App& cmd, const kernels::Kernel& kernel, std::vector<BoundOption>& bound);

// The options given, as text.
std::map<std::string, std::string> given_options(const kernels::Kernel& kernel,
                                                 const std::vector<BoundOption>& bound);

// A kernel's result, or a CliError of its first error.
template <typename T>
T take(kernels::Result<T> r) {
  if (!r) throw CliError(first_error(r.errors()));
  return std::move(r.value());
}

}  // namespace treesim::tools
