// The kernels' YAML input files (plan files, chain specs): read with io::read_input_file's checks
// and cap and parsed with yaml-cpp; their errors name the file and the line.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>

#include "kernels/kernel.h"

namespace treesim::kernels {

// The file's YAML, or an error "PATH: why" (unreadable) or "PATH:LINE: not YAML: why".
Result<YAML::Node> load_yaml_file(const std::string& path, std::uint64_t max_bytes, const std::string& kind);
// `text` (a file's contents, named `path` in messages) as YAML: the parsing half of load_yaml_file.
Result<YAML::Node> parse_yaml_text(const std::string& text, const std::string& path);
// `text` as a YAML scalar that reads back as it: plain when it is a plain name (letters, digits,
// '_', '-', '.', '/', ':' inside), else double-quoted with '\\', '"' and control characters escaped.
std::string yaml_scalar(const std::string& text, bool always_quote = false);
// A whole number as a plan file writes it: 1 to 18 decimal digits (no sign, no spaces).
std::optional<std::uint64_t> whole_number(const std::string& text);
// An error about `node` of the file at `path`: "PATH:LINE" (line 1 for a missing node), `message`.
core::Error yaml_error(const std::string& path, const YAML::Node& node, const std::string& message);

}  // namespace treesim::kernels
