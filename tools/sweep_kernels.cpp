#include "tools/sweep_kernels.h"

#include "kernels/registry.h"

namespace treesim::tools {
namespace {

// `treesim run mlp`'s options (tools/cmd_mlp.cpp), by the names its command line takes.
kernels::Kernel mlp_command() {
  using kernels::OptionKind;
  kernels::Kernel k;
  k.name = "mlp";
  k.summary = "A quantized MLP on Fashion-MNIST's test images (treesim run mlp)";
  k.options = {
      {"model", OptionKind::kPath, "Model folder", std::nullopt, {}, std::nullopt, std::nullopt},
      {"data", OptionKind::kPath, "Test image folder", std::nullopt, {}, std::nullopt, std::nullopt},
      {"images", OptionKind::kUnsigned, "Test images", std::nullopt, {}, 1, std::nullopt},
      {"batch", OptionKind::kUnsigned, "Images per batch", std::nullopt, {}, 1, std::nullopt},
      {"plan-file", OptionKind::kPath, "Chain plan", std::nullopt, {}, std::nullopt, std::nullopt},
      {"chain-plan", OptionKind::kFlag, "With via-dram", std::nullopt, {}, std::nullopt, std::nullopt},
      {"via-dram", OptionKind::kFlag, "A program per layer", std::nullopt, {}, std::nullopt, std::nullopt}};
  return k;
}

}  // namespace

const kernels::Kernel* sweep_kernel(const std::string& name) {
  static const kernels::Kernel mlp = mlp_command();
  if (name == mlp.name) return &mlp;
  return kernels::find_kernel(name);
}

bool takes_verify(const kernels::Kernel& kernel) { return kernel.make_problem != nullptr; }

}  // namespace treesim::tools
