#include "tools/kernel_options.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace treesim::tools {
namespace {

void bind(CLI::App& cmd, const kernels::OptionSpec& spec, BoundOption& b) {
  const std::string flag = kernels::option_flag(spec.name);
  if (spec.kind == kernels::OptionKind::kFlag) {
    b.option = cmd.add_flag(flag, b.flag, spec.help);
    return;
  }
  b.option = cmd.add_option(flag, b.text, spec.help);
  switch (spec.kind) {
    case kernels::OptionKind::kUnsigned:
      b.option->type_name("UINT");
      break;
    case kernels::OptionKind::kSigned:
      b.option->type_name("INT");
      break;
    case kernels::OptionKind::kPath:
      b.option->type_name("FILE");
      break;
    case kernels::OptionKind::kChoice:
      b.option->type_name(fmt::format("{{{}}}", fmt::join(spec.choices, ",")));
      break;
    default:
      break;
  }
  if (spec.default_value) b.option->default_str(kernels::to_text(*spec.default_value));
}

}  // namespace

void bind_kernel_options(CLI::App& cmd, const kernels::Kernel& kernel, std::vector<BoundOption>& bound) {
  bound.resize(kernel.options.size());  // never resized again: CLI11 holds pointers into it
  for (std::size_t i = 0; i < kernel.options.size(); ++i) bind(cmd, kernel.options[i], bound[i]);
}

std::map<std::string, std::string> given_options(const kernels::Kernel& kernel,
                                                 const std::vector<BoundOption>& bound) {
  std::map<std::string, std::string> out;
  const auto& specs = kernel.options;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const BoundOption& b = bound[i];
    if (b.option->count() == 0) continue;
    out[specs[i].name] = specs[i].kind == kernels::OptionKind::kFlag ? (b.flag ? "true" : "false") : b.text;
  }
  return out;
}

}  // namespace treesim::tools
