// The only file that knows yaml-cpp: turns a YAML document into a validated MachineConfig.
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "sim/core/decimal.h"
#include "sim/core/echo.h"
#include "sim/io/input_file.h"
#include "sim/machine/machine_file.h"
#include "sim/machine/validate.h"

namespace treesim::machine {

MachineFileError::MachineFileError(std::string file, int line, int column, std::string message)
    : std::runtime_error(fmt::format("{}:{}:{}: {}", core::echo(file, 0), line, column, message)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      message_(std::move(message)) {}

bool parse_size(const std::string& text, std::uint64_t& bytes) {
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 || i > 19) return false;
  std::uint64_t value = std::stoull(text.substr(0, i));
  std::string suffix = text.substr(i);
  while (!suffix.empty() && suffix.front() == ' ') suffix.erase(suffix.begin());
  static const std::pair<const char*, unsigned> kSuffixes[] = {{"", 0},     {"B", 0},    {"KiB", 10},
                                                               {"MiB", 20}, {"GiB", 30}, {"TiB", 40}};
  for (const auto& [name, shift] : kSuffixes) {
    if (suffix != name) continue;
    if (shift > 0 && value > (UINT64_MAX >> shift)) return false;
    bytes = value << shift;
    return true;
  }
  return false;
}

namespace {

std::string describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsSequence()) return node.size() == 0 ? "an empty list" : "a list";
  if (node.IsMap()) return "a mapping";
  return fmt::format("'{}'", core::echo(node.Scalar()));
}

// Walks the document with the file name at hand, so every error can say where it is.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message) const {
    int line = mark.line >= 0 ? mark.line + 1 : 1;
    int column = mark.column >= 0 ? mark.column + 1 : 1;
    throw MachineFileError(file_, line, column, message);
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
        fail(it->first.Mark(), fmt::format("unknown field '{}' (expected one of: {})", where, names));
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

LevelConfig read_level(const Reader& r, const YAML::Node& node, const YAML::Mark& fallback,
                       const std::string& path, bool is_pe) {
  r.expect_map(
      node, fallback, path,
      {"name", "fanout", "memory_bytes", "down_bytes_per_cycle", "up_bytes_per_cycle", "latency_cycles",
       "reduce"},
      {"name", "fanout", "memory_bytes", "down_bytes_per_cycle", "up_bytes_per_cycle", "latency_cycles"});
  const YAML::Mark m = node.Mark();
  LevelConfig level;
  level.name = r.level_name(node["name"], m, path + ".name");
  level.fanout = r.integer(node["fanout"], m, path + ".fanout", 1);
  // The PE's memory is its LM, which every layout needs; other levels may have none.
  level.memory_bytes = r.size(node["memory_bytes"], m, path + ".memory_bytes", is_pe ? 1 : 0);
  level.down_bytes_per_cycle = r.integer(node["down_bytes_per_cycle"], m, path + ".down_bytes_per_cycle", 1);
  level.up_bytes_per_cycle = r.integer(node["up_bytes_per_cycle"], m, path + ".up_bytes_per_cycle", 1);
  level.latency_cycles = r.integer(node["latency_cycles"], m, path + ".latency_cycles", 0);
  if (node["reduce"].IsDefined()) level.reduce = r.boolean(node["reduce"], m, path + ".reduce");
  return level;
}

// Reads a `{ <rate_key>: N, latency_cycles: N }` unit description.
std::pair<std::uint64_t, std::uint64_t> read_unit(const Reader& r, const YAML::Node& node,
                                                  const YAML::Mark& fallback, const std::string& path,
                                                  const std::string& rate_key) {
  r.expect_map(node, fallback, path, {rate_key, "latency_cycles"}, {rate_key, "latency_cycles"});
  return {r.integer(node[rate_key], node.Mark(), path + "." + rate_key, 1),
          r.integer(node["latency_cycles"], node.Mark(), path + ".latency_cycles", 0)};
}

MachineConfig read_machine(const Reader& r, const YAML::Node& root) {
  const YAML::Mark top;  // 0:0, for a document that is not a mapping
  if (!root.IsMap())
    r.fail(root.Mark().line >= 0 ? root.Mark() : top,
           fmt::format("expected a machine description (a YAML mapping with name, clock_ghz, dram, "
                       "levels, pe), got {}",
                       describe(root)));
  r.expect_map(root, top, "", {"name", "clock_ghz", "dram", "levels", "pe", "energy", "quantum_cycles"},
               {"name", "clock_ghz", "dram", "levels", "pe"});
  const YAML::Mark m = root.Mark();
  MachineConfig c;
  c.name = r.text(root["name"], m, "name");
  c.clock_ghz = r.positive_real(root["clock_ghz"], m, "clock_ghz", false);
  if (root["quantum_cycles"].IsDefined())
    c.quantum_cycles = r.integer(root["quantum_cycles"], m, "quantum_cycles", 1);

  const YAML::Node dram = root["dram"];
  r.expect_map(dram, m, "dram", {"bytes", "bytes_per_cycle", "latency_cycles"},
               {"bytes", "bytes_per_cycle", "latency_cycles"});
  c.dram.bytes = r.size(dram["bytes"], dram.Mark(), "dram.bytes", 1);
  c.dram.bytes_per_cycle = r.integer(dram["bytes_per_cycle"], dram.Mark(), "dram.bytes_per_cycle", 1);
  c.dram.latency_cycles = r.integer(dram["latency_cycles"], dram.Mark(), "dram.latency_cycles", 0);

  const YAML::Node levels = root["levels"];
  if (!levels.IsSequence() || levels.size() == 0)
    r.fail_field(levels, m, "levels", "a non-empty list of levels (root-most first, the PE last)");
  // Before any level is read: a hostile count costs nothing.
  if (levels.size() > MachineLimits::kMaxLevels)
    r.fail(levels.Mark(), fmt::format("field 'levels': expected at most {} levels, got {}",
                                      MachineLimits::kMaxLevels, levels.size()));
  r.note(levels, m, "levels");
  std::set<std::string> names;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    std::string path = fmt::format("levels[{}]", i);
    LevelConfig level = read_level(r, levels[i], levels.Mark(), path, i + 1 == levels.size());
    if (!names.insert(level.name).second)
      r.fail(levels[i]["name"].Mark(),
             fmt::format("field '{}.name': level name '{}' is used twice", path, level.name));
    c.levels.push_back(std::move(level));
  }

  const YAML::Node pe = root["pe"];
  r.expect_map(pe, m, "pe",
               {"mac", "dpt_decoder", "base3_decoder", "ternary_mac", "sparse_mac", "requant", "copy",
                "words_per_address"},
               {"mac", "dpt_decoder", "requant"});
  std::tie(c.pe.mac.int8_macs_per_cycle, c.pe.mac.latency_cycles) =
      read_unit(r, pe["mac"], pe.Mark(), "pe.mac", "int8_macs_per_cycle");
  std::tie(c.pe.dpt_decoder.bytes_per_cycle, c.pe.dpt_decoder.latency_cycles) =
      read_unit(r, pe["dpt_decoder"], pe.Mark(), "pe.dpt_decoder", "bytes_per_cycle");
  if (pe["base3_decoder"].IsDefined()) {
    machine::DptDecoderConfig d;
    std::tie(d.bytes_per_cycle, d.latency_cycles) =
        read_unit(r, pe["base3_decoder"], pe.Mark(), "pe.base3_decoder", "bytes_per_cycle");
    c.pe.base3_decoder = d;
  }
  if (pe["ternary_mac"].IsDefined()) {
    machine::TernaryMacConfig t;
    std::tie(t.macs_per_cycle, t.latency_cycles) =
        read_unit(r, pe["ternary_mac"], pe.Mark(), "pe.ternary_mac", "macs_per_cycle");
    c.pe.ternary_mac = t;
  }
  if (pe["sparse_mac"].IsDefined()) {
    machine::SparseMacConfig t;
    std::tie(t.items_per_cycle, t.latency_cycles) =
        read_unit(r, pe["sparse_mac"], pe.Mark(), "pe.sparse_mac", "items_per_cycle");
    c.pe.sparse_mac = t;
  }
  std::tie(c.pe.requant.values_per_cycle, c.pe.requant.latency_cycles) =
      read_unit(r, pe["requant"], pe.Mark(), "pe.requant", "values_per_cycle");
  if (pe["copy"].IsDefined())
    std::tie(c.pe.copy.bytes_per_cycle, c.pe.copy.latency_cycles) =
        read_unit(r, pe["copy"], pe.Mark(), "pe.copy", "bytes_per_cycle");
  if (pe["words_per_address"].IsDefined())
    c.pe.words_per_address = r.integer(pe["words_per_address"], pe.Mark(), "pe.words_per_address", 1);

  if (const YAML::Node energy = root["energy"]; energy.IsDefined()) {
    r.expect_map(energy, m, "energy", {"mac_int8_pj", "lm_byte_pj", "dram_byte_pj", "link_byte_pj"},
                 {"mac_int8_pj", "lm_byte_pj", "dram_byte_pj"});
    EnergyConfig e;
    e.mac_int8_pj = r.positive_real(energy["mac_int8_pj"], energy.Mark(), "energy.mac_int8_pj", true);
    e.lm_byte_pj = r.positive_real(energy["lm_byte_pj"], energy.Mark(), "energy.lm_byte_pj", true);
    e.dram_byte_pj = r.positive_real(energy["dram_byte_pj"], energy.Mark(), "energy.dram_byte_pj", true);
    if (const YAML::Node links = energy["link_byte_pj"]; links.IsDefined()) {
      r.expect_map(links, energy.Mark(), "energy.link_byte_pj", names, {});
      for (auto it = links.begin(); it != links.end(); ++it) {
        std::string key = it->first.Scalar();
        e.link_byte_pj[key] =
            r.positive_real(it->second, it->first.Mark(), "energy.link_byte_pj." + key, true);
      }
    }
    c.energy = e;
  }
  // What the syntax checks above cannot see: limits, overflowing fan-outs, every rate.
  if (const std::vector<core::Error> errors = validate(c); !errors.empty())
    r.fail(r.mark_of(errors.front().where),
           fmt::format("field '{}': {}", errors.front().where, errors.front().what));
  return c;
}

}  // namespace

MachineConfig parse_machine_yaml(const std::string& text, const std::string& file) {
  Reader reader(file);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    reader.fail(e.mark, fmt::format("not valid YAML: {}", e.msg));
  }
  if (!root.IsDefined() || root.IsNull())
    reader.fail(YAML::Mark(),
                "the file is empty (expected a machine description: name, clock_ghz, "
                "dram, levels, pe)");
  return read_machine(reader, root);
}

MachineConfig load_machine_file(const std::string& path) {
  std::string text;
  try {
    text = io::read_input_file(path, io::kMaxMachineFileBytes, "machine file");
  } catch (const io::InputFileError& e) {
    throw MachineFileError(path, 1, 1, e.reason());
  }
  return parse_machine_yaml(text, path);
}

}  // namespace treesim::machine
