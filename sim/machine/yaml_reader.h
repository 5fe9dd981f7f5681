// The machine-file readers' walk over a YAML document (machine_yaml.cpp, memspec_yaml.cpp): every
// field checked, every error one line naming the file, line, column and field. Only files of this
// folder include it: yaml-cpp stays out of every other layer.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include <fmt/format.h>

#include "sim/core/decimal.h"
#include "sim/core/echo.h"
#include "sim/core/suggest.h"
#include "sim/machine/machine_file.h"

namespace treesim::machine::detail {

inline std::string describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsSequence()) return node.size() == 0 ? "an empty list" : "a list";
  if (node.IsMap()) return "a mapping";
  return fmt::format("'{}'", core::echo(node.Scalar()));
}

// Walks the document with the file name at hand, so every error can say where it is.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message,
                         MachineFileError::Kind kind = MachineFileError::Kind::kValue) const {
    int line = mark.line >= 0 ? mark.line + 1 : 1;
    int column = mark.column >= 0 ? mark.column + 1 : 1;
    throw MachineFileError(file_, line, column, message, kind);
  }
  // Where each field was read, so a problem found later by validate() points into the file.
  void note(const YAML::Node& node, const YAML::Mark& fallback, const std::string& path) const {
    marks_[path] = node.IsDefined() && node.Mark().line >= 0 ? node.Mark() : fallback;
  }
  // The mark of `path` or of the nearest enclosing field that was read ("levels[2].fanout" →
  // "levels[2]" → "levels"); the start of the file when none was.
  YAML::Mark mark_of(std::string path) const {
    for (;;) {
      if (auto it = marks_.find(path); it != marks_.end()) return it->second;
      const auto cut = path.find_last_of(".[");
      if (cut == std::string::npos || cut == 0) return YAML::Mark();
      path.erase(cut);
    }
  }

  [[noreturn]] void fail_field(const YAML::Node& node, const YAML::Mark& fallback, const std::string& path,
                               const std::string& expected) const {
    YAML::Mark mark = node.IsDefined() && node.Mark().line >= 0 ? node.Mark() : fallback;
    fail(mark, fmt::format("field '{}': expected {}, got {}", path, expected, describe(node)));
  }

  // Checks that `node` is a mapping whose keys are all in `allowed` and that `required` are there.
  void expect_map(const YAML::Node& node, const YAML::Mark& fallback, const std::string& path,
                  const std::set<std::string>& allowed, const std::set<std::string>& required) const {
    if (!node.IsMap()) fail_field(node, fallback, path, "a mapping");
    std::set<std::string> seen;
    for (auto it = node.begin(); it != node.end(); ++it) {
      std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
      std::string where = core::echo(path.empty() ? key : path + "." + key);
      if (!allowed.count(key)) {
        std::string names;
        for (const auto& a : allowed) names += (names.empty() ? "" : ", ") + a;
        const std::optional<std::string> near =
            core::closest(key, std::vector<std::string>(allowed.begin(), allowed.end()));
        fail(it->first.Mark(),
             fmt::format("unknown field '{}' ({}expected one of: {})", where,
                         near ? "did you mean '" + *near + "'? " : "", names),
             MachineFileError::Kind::kUnknownField);
      }
      if (!seen.insert(key).second) fail(it->first.Mark(), fmt::format("field '{}' given twice", where));
    }
    for (const auto& key : required) {
      if (!node[key].IsDefined()) {
        std::string where = path.empty() ? key : path + "." + key;
        fail(node.Mark(), fmt::format("field '{}': missing (it is required)", where));
      }
    }
  }

  std::uint64_t integer(const YAML::Node& node, const YAML::Mark& fallback, const std::string& path,
                        std::uint64_t min) const {
    const char* expected = min > 0 ? "a positive integer" : "a non-negative integer";
    note(node, fallback, path);
    if (!node.IsScalar()) fail_field(node, fallback, path, expected);
    const std::string& s = node.Scalar();
    bool digits = !s.empty() && s.size() <= 19;
    for (char c : s) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (!digits) fail_field(node, fallback, path, expected);
    std::uint64_t value = std::stoull(s);
    if (value < min) fail_field(node, fallback, path, expected);
    return value;
  }

  std::uint64_t size(const YAML::Node& node, const YAML::Mark& fallback, const std::string& path,
                     std::uint64_t min) const {
    const char* expected = min > 0 ? "a positive size in bytes (e.g. 4096, 64KiB, 1MiB, 2GiB)"
                                   : "a size in bytes (e.g. 0, 4096, 64KiB, 1MiB, 2GiB)";
    std::uint64_t bytes = 0;
    note(node, fallback, path);
    if (!node.IsScalar() || !parse_size(node.Scalar(), bytes) || bytes < min)
      fail_field(node, fallback, path, expected);
    return bytes;
  }

  double positive_real(const YAML::Node& node, const YAML::Mark& fallback, const std::string& path,
                       bool allow_zero) const {
    const char* expected = allow_zero ? "a non-negative number" : "a positive number";
    double value = 0;
    note(node, fallback, path);
    // Decimal numbers only: std::stod would also take hexadecimal floats, "inf" and "nan".
    if (!node.IsScalar() || !core::is_decimal_number(node.Scalar()))
      fail_field(node, fallback, path, expected);
    try {
      std::size_t used = 0;
      value = std::stod(node.Scalar(), &used);
      if (used != node.Scalar().size()) fail_field(node, fallback, path, expected);
    } catch (const std::logic_error&) {
      fail_field(node, fallback, path, expected);
    }
    if (!std::isfinite(value) || value < 0 || (!allow_zero && value == 0))
      fail_field(node, fallback, path, expected);
    return value;
  }

  bool boolean(const YAML::Node& node, const YAML::Mark& fallback, const std::string& path) const {
    if (node.IsScalar() && (node.Scalar() == "true" || node.Scalar() == "false"))
      return node.Scalar() == "true";
    fail_field(node, fallback, path, "true or false");
  }

  std::string level_name(const YAML::Node& node, const YAML::Mark& fallback, const std::string& path) const {
    const char* expected = "a level name (a letter, then letters or digits)";
    note(node, fallback, path);
    if (!node.IsScalar() || node.Scalar().empty()) fail_field(node, fallback, path, expected);
    const std::string& s = node.Scalar();
    bool ok = std::isalpha(static_cast<unsigned char>(s[0]));
    for (char c : s) ok = ok && std::isalnum(static_cast<unsigned char>(c));
    if (!ok) fail_field(node, fallback, path, expected);
    if (is_reserved_level_name(s))
      fail(node.Mark(), fmt::format("field '{}': '{}' is reserved in layouts (W, Time and B cannot "
                                    "name a level)",
                                    path, s));
    return s;
  }

  std::string text(const YAML::Node& node, const YAML::Mark& fallback, const std::string& path) const {
    note(node, fallback, path);
    if (!node.IsScalar() || node.Scalar().empty()) fail_field(node, fallback, path, "a non-empty string");
    return node.Scalar();
  }

 private:
  std::string file_;
  mutable std::map<std::string, YAML::Mark> marks_;
};

}  // namespace treesim::machine::detail
