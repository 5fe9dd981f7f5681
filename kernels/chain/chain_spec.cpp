// The chain spec file and --widths: the only chain file that knows yaml-cpp.
#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include "kernels/chain/chain.h"
#include "kernels/yaml_file.h"
#include "sim/core/echo.h"

namespace treesim::kernels {
namespace {

constexpr std::uint64_t kMaxSpecBytes = std::uint64_t{1} << 20;
constexpr std::uint64_t kMaxLayers = 64;

std::optional<std::uint64_t> whole(const std::string& s) {
  if (s.empty() || s.size() > 12) return std::nullopt;
  for (char c : s)
    if (c < '0' || c > '9') return std::nullopt;
  const std::uint64_t v = std::stoull(s);
  return v == 0 ? std::nullopt : std::optional<std::uint64_t>(v);
}

}  // namespace

core::Errors chain_spec_errors(const GemmChainSpec& spec, const machine::MachineConfig& machine,
                               const std::string& dram_where) {
  if (spec.widths.size() < 2) return {{dram_where, "expected at least two widths (one layer)"}};
  // Every activation, weight and bias in DRAM, refused before anything is allocated.
  std::optional<std::uint64_t> total = checked_mul(spec.m, spec.widths[0]);
  for (std::size_t i = 0; i + 1 < spec.widths.size(); ++i) {
    for (auto part :
         {checked_mul(spec.m, spec.widths[i + 1]), checked_mul(spec.widths[i], spec.widths[i + 1]),
          checked_mul(spec.widths[i + 1], std::uint64_t{4})})
      total = total && part ? checked_add(*total, *part) : std::nullopt;
  }
  if (!total || *total > machine.dram.bytes)
    return {{dram_where,
             fmt::format("the chain needs {} of DRAM for its activations and weights, the machine has {}",
                         total ? fmt::format("{} bytes", *total) : std::string("more than 2^64 bytes"),
                         machine.dram.bytes)}};
  core::Errors errors;
  for (std::size_t i = 0; i < spec.layers(); ++i) {
    try {
      check_problem(chain_layer_problem(spec, i));
    } catch (const QgemmError& e) {
      errors.push_back({fmt::format("layer {}", i), e.what()});
    }
  }
  return errors;
}

Result<std::vector<std::uint64_t>> parse_widths(const std::string& text, const std::string& option) {
  std::vector<std::uint64_t> widths;
  std::size_t from = 0;
  while (from <= text.size()) {
    std::size_t end = text.find(',', from);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(from, end - from);
    const auto w = whole(item);
    if (!w)
      return core::Error{option, fmt::format("expected positive whole widths separated by commas, got '{}'",
                                             core::echo(item))};
    widths.push_back(*w);
    from = end + 1;
  }
  if (widths.size() < 2 || widths.size() > kMaxLayers + 1)
    return core::Error{option, fmt::format("expected 2 to {} widths (one more than the layers), got {}",
                                           kMaxLayers + 1, widths.size())};
  return widths;
}

// A spec's fields from its YAML (its lines named by `path`).
Result<GemmChainSpec> chain_spec_of(const YAML::Node& root, const std::string& path);

Result<GemmChainSpec> read_chain_spec(const std::string& path) {
  Result<YAML::Node> loaded = load_yaml_file(path, kMaxSpecBytes, "chain spec");
  if (!loaded) return loaded.errors();
  return chain_spec_of(loaded.value(), path);
}

Result<GemmChainSpec> parse_chain_spec(const std::string& text, const std::string& path) {
  Result<YAML::Node> loaded = parse_yaml_text(text, path);
  if (!loaded) return loaded.errors();
  return chain_spec_of(loaded.value(), path);
}

Result<GemmChainSpec> chain_spec_of(const YAML::Node& root, const std::string& path) {
  auto at = [&](const YAML::Node& node, const std::string& message) {
    return yaml_error(path, node, message);
  };
  if (!root.IsMap()) return at(root, "expected a mapping with m and widths");
  GemmChainSpec spec;
  for (const auto& kv : root) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
    const YAML::Node& v = kv.second;
    if (key == "m" || key == "candidates_per_layer") {
      const auto n = v.IsScalar() ? whole(v.Scalar()) : std::nullopt;
      if (!n) return at(v, fmt::format("'{}': expected a positive whole number", key));
      if (key == "m")
        spec.m = *n;
      else
        spec.candidates_per_layer = static_cast<std::size_t>(std::min<std::uint64_t>(*n, 1000));
    } else if (key == "widths") {
      if (!v.IsSequence())
        return at(v, "'widths': expected a list of layer widths (w0, w1, …: one more than the layers)");
      std::string joined;
      for (const auto& w : v)
        joined += (joined.empty() ? "" : ",") + (w.IsScalar() ? w.Scalar() : std::string("?"));
      Result<std::vector<std::uint64_t>> widths = parse_widths(joined, "'widths'");
      if (!widths) return at(v, widths.errors().front().message());
      spec.widths = widths.value();
    } else {
      return at(kv.first, fmt::format("unknown field '{}' (expected m, widths, candidates_per_layer)",
                                      core::echo(key)));
    }
  }
  if (spec.m == 0) return at(root, "'m' is missing");
  if (spec.widths.empty()) return at(root, "'widths' is missing");
  return spec;
}

}  // namespace treesim::kernels
