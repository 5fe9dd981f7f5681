#include "sim/machine/machine_patch.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <optional>

#include <fmt/format.h>

#include "sim/core/echo.h"

namespace treesim::machine {
namespace {

struct Step {
  std::string key;
  bool has_selector = false;
  std::string selector;
};

bool is_key(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// "levels[PE].memory_bytes" → {levels [PE]}, {memory_bytes}; false when it is not of that shape.
bool split_path(const std::string& path, std::vector<Step>& steps) {
  std::size_t i = 0;
  while (i <= path.size()) {
    std::size_t end = path.find('.', i);
    if (end == std::string::npos) end = path.size();
    std::string part = path.substr(i, end - i);
    Step step;
    if (std::size_t open = part.find('['); open != std::string::npos) {
      if (part.back() != ']' || open + 2 >= part.size()) return false;
      step.has_selector = true;
      step.selector = part.substr(open + 1, part.size() - open - 2);
      part = part.substr(0, open);
      if (!is_key(step.selector)) return false;
    }
    if (!is_key(part)) return false;
    step.key = part;
    steps.push_back(step);
    i = end + 1;
  }
  return !steps.empty();
}

bool all_digits(const std::string& s) {
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return !s.empty();
}

// The element of `list` that `selector` names: an index, or the element whose `name` it is.
std::optional<std::size_t> select(const YAML::Node& list, const std::string& selector) {
  if (all_digits(selector)) {
    if (selector.size() > 6) return std::nullopt;
    std::size_t index = std::stoul(selector);
    return index < list.size() ? std::optional<std::size_t>(index) : std::nullopt;
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node element = list[i];
    if (element.IsMap() && element["name"] && element["name"].IsScalar() &&
        element["name"].Scalar() == selector)
      return i;
  }
  return std::nullopt;
}

std::string names_of(const YAML::Node& list) {
  std::string out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node element = list[i];
    if (!element.IsMap() || !element["name"] || !element["name"].IsScalar()) continue;
    out += (out.empty() ? "" : ", ") + element["name"].Scalar();
  }
  return out;
}

// Applies one setting; the error text, or "" when it was set.
std::string apply(YAML::Node root, const FieldSetting& setting) {
  std::vector<Step> steps;
  if (!split_path(setting.path, steps))
    return "expected a field path such as dram.bytes_per_cycle or levels[PE].memory_bytes";
  YAML::Node node = root;
  std::string walked;
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const Step& step = steps[s];
    if (!node.IsMap()) return fmt::format("'{}' is not a mapping in the machine file", walked);
    walked += (walked.empty() ? "" : ".") + step.key;
    const bool last = s + 1 == steps.size();
    if (last && !step.has_selector) {
      node[step.key] = setting.value;
      return "";
    }
    if (!step.has_selector) {
      if (!node[step.key]) node[step.key] = YAML::Node(YAML::NodeType::Map);
      node.reset(node[step.key]);
      continue;
    }
    const YAML::Node list = node[step.key];
    if (!list || !list.IsSequence()) return fmt::format("'{}' is not a list in the machine file", walked);
    const std::optional<std::size_t> index = select(list, step.selector);
    if (!index)
      return all_digits(step.selector)
                 ? fmt::format("'{}' has {} entries, so there is no [{}]", walked, list.size(), step.selector)
                 : fmt::format("no entry of '{}' is named '{}' (the names are {})", walked, step.selector,
                               names_of(list));
    walked += "[" + step.selector + "]";
    if (last) {
      YAML::Node element = node[step.key][*index];
      element = setting.value;
      return "";
    }
    node.reset(node[step.key][*index]);
  }
  return "";
}

}  // namespace

bool is_machine_field_path(const std::string& path) {
  std::size_t end = path.find_first_of(".[");
  const std::string first = path.substr(0, end);
  for (const char* key : {"name", "clock_ghz", "dram", "levels", "pe", "energy"})
    if (first == key) return true;
  return false;
}

PatchResult patch_machine_yaml(const std::string& text, const std::vector<FieldSetting>& settings) {
  PatchResult out;
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    out.errors.push_back({"", fmt::format("not valid YAML: {}", core::echo(e.msg, 200))});
    return out;
  }
  if (!root.IsMap()) {
    out.errors.push_back({"", "expected a machine description (a YAML mapping)"});
    return out;
  }
  for (const FieldSetting& setting : settings)
    if (std::string error = apply(root, setting); !error.empty())
      out.errors.push_back({core::echo(setting.path, 100), error});
  if (!out.errors.empty()) return out;
  YAML::Emitter emitter;
  emitter << root;
  out.yaml = std::string(emitter.c_str()) + "\n";
  return out;
}

}  // namespace treesim::machine
