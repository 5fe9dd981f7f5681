#include "kernels/yaml_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "sim/core/echo.h"
#include "sim/io/input_file.h"

namespace treesim::kernels {

Result<YAML::Node> load_yaml_file(const std::string& path, std::uint64_t max_bytes, const std::string& kind) {
  std::string text;
  try {
    text = io::read_input_file(path, max_bytes, kind);
  } catch (const io::InputFileError& e) {
    return core::Error{path, e.reason()};
  }
  return parse_yaml_text(text, path);
}

Result<YAML::Node> parse_yaml_text(const std::string& text, const std::string& path) {
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return core::Error{fmt::format("{}:{}", path, e.mark.line + 1), "not YAML: " + core::echo(e.msg, 200)};
  }
}

std::string yaml_scalar(const std::string& text, bool always_quote) {
  bool plain = !always_quote && !text.empty() && std::isalnum(static_cast<unsigned char>(text.front())) &&
               text.back() != ':';
  for (char c : text)
    plain = plain &&
            (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '/');
  if (plain) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20)
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
    else
      out += c;
  }
  return out + "\"";
}

std::optional<std::uint64_t> whole_number(const std::string& text) {
  bool ok = !text.empty() && text.size() < 19;
  for (char c : text) ok = ok && c >= '0' && c <= '9';
  if (!ok) return std::nullopt;
  return std::stoull(text);
}

core::Error yaml_error(const std::string& path, const YAML::Node& node, const std::string& message) {
  const int line = node.IsDefined() ? std::max(1, node.Mark().line + 1) : 1;
  return core::Error{fmt::format("{}:{}", path, line), message};
}

}  // namespace treesim::kernels
