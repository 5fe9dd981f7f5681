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
#include "sim/machine/dram_yaml.h"
#include "sim/machine/machine_file.h"
#include "sim/machine/validate.h"
#include "sim/machine/yaml_reader.h"

namespace treesim::machine {

MachineFileError::MachineFileError(std::string file, int line, int column, std::string message, Kind kind)
    : std::runtime_error(fmt::format("{}:{}:{}: {}", core::echo(file, 0), line, column, message)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      message_(std::move(message)),
      kind_(kind) {}

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

using detail::describe;
using detail::Reader;

// pe.vector: the unit's lanes and latency, and a cost per operation (docs/machine-files.md).
VectorConfig read_vector(const Reader& r, const YAML::Node& node, const YAML::Mark& fallback) {
  const std::string path = "pe.vector";
  r.expect_map(node, fallback, path, {"values_per_cycle", "latency_cycles", "ops"},
               {"values_per_cycle", "latency_cycles"});
  VectorConfig v;
  v.values_per_cycle = r.integer(node["values_per_cycle"], node.Mark(), path + ".values_per_cycle", 1);
  v.latency_cycles = r.integer(node["latency_cycles"], node.Mark(), path + ".latency_cycles", 0);
  const YAML::Node ops = node["ops"];
  if (!ops.IsDefined()) return v;
  std::set<std::string> names;
  for (std::size_t i = 0; i < core::kVectorOpCount; ++i)
    names.insert(core::vector_op_name(static_cast<core::VectorOp>(i)));
  r.expect_map(ops, node.Mark(), path + ".ops", names, {});
  for (const auto& entry : ops) {
    const std::string name = entry.first.as<std::string>();
    const std::string at = path + ".ops." + name;
    const YAML::Node e = entry.second;
    r.expect_map(e, ops.Mark(), at, {"cycles_per_value", "latency_cycles", "assumed"},
                 {"cycles_per_value", "latency_cycles", "assumed"});
    VectorOpCost cost;
    cost.cycles_per_value = r.integer(e["cycles_per_value"], e.Mark(), at + ".cycles_per_value", 1);
    cost.latency_cycles = r.integer(e["latency_cycles"], e.Mark(), at + ".latency_cycles", 0);
    cost.assumed = r.boolean(e["assumed"], e.Mark(), at + ".assumed");
    v.ops[*core::parse_vector_op(name)] = cost;
  }
  return v;
}

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

MachineConfig read_machine(const Reader& r, const YAML::Node& root, const std::string& file) {
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

  // After the levels: `per` names one.
  detail::read_dram(r, root["dram"], m, c, file);

  const YAML::Node pe = root["pe"];
  r.expect_map(pe, m, "pe",
               {"mac", "dpt_decoder", "base3_decoder", "ternary_mac", "sparse_mac", "requant", "copy",
                "vector", "words_per_address", "instruction_step_cycles"},
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
  if (const YAML::Node sm = pe["sparse_mac"]; sm.IsDefined()) {
    machine::SparseMacConfig t;
    const std::string path = "pe.sparse_mac";
    r.expect_map(sm, pe.Mark(), path,
                 {"items_per_cycle", "latency_cycles", "entry_items", "segment_items", "level_items"},
                 {"items_per_cycle", "latency_cycles"});
    t.items_per_cycle = r.integer(sm["items_per_cycle"], sm.Mark(), path + ".items_per_cycle", 1);
    t.latency_cycles = r.integer(sm["latency_cycles"], sm.Mark(), path + ".latency_cycles", 0);
    if (sm["entry_items"].IsDefined())
      t.entry_items = r.integer(sm["entry_items"], sm.Mark(), path + ".entry_items", 0);
    if (sm["segment_items"].IsDefined())
      t.segment_items = r.integer(sm["segment_items"], sm.Mark(), path + ".segment_items", 0);
    if (const YAML::Node li = sm["level_items"]; li.IsDefined()) {
      const std::set<std::string> kinds(std::begin(machine::kSparseLevelKinds),
                                        std::end(machine::kSparseLevelKinds));
      r.expect_map(li, sm.Mark(), path + ".level_items", kinds, {});
      for (std::size_t k = 0; k < t.level_items.size(); ++k) {
        const std::string kind = machine::kSparseLevelKinds[k];
        if (li[kind].IsDefined())
          t.level_items[k] = r.integer(li[kind], li.Mark(), path + ".level_items." + kind, 0);
      }
    }
    c.pe.sparse_mac = t;
  }
  std::tie(c.pe.requant.values_per_cycle, c.pe.requant.latency_cycles) =
      read_unit(r, pe["requant"], pe.Mark(), "pe.requant", "values_per_cycle");
  if (const YAML::Node v = pe["vector"]; v.IsDefined()) c.pe.vector = read_vector(r, v, pe.Mark());
  if (pe["copy"].IsDefined())
    std::tie(c.pe.copy.bytes_per_cycle, c.pe.copy.latency_cycles) =
        read_unit(r, pe["copy"], pe.Mark(), "pe.copy", "bytes_per_cycle");
  if (pe["words_per_address"].IsDefined())
    c.pe.words_per_address = r.integer(pe["words_per_address"], pe.Mark(), "pe.words_per_address", 1);
  if (pe["instruction_step_cycles"].IsDefined())
    c.pe.instruction_step_cycles =
        r.integer(pe["instruction_step_cycles"], pe.Mark(), "pe.instruction_step_cycles", 1);

  if (const YAML::Node energy = root["energy"]; energy.IsDefined()) {
    r.expect_map(energy, m, "energy",
                 {"mac_int8_pj", "lm_byte_pj", "dram_byte_pj", "link_byte_pj", "vector_lane_cycle_pj"},
                 {"mac_int8_pj", "lm_byte_pj", "dram_byte_pj"});
    EnergyConfig e;
    if (energy["vector_lane_cycle_pj"].IsDefined())
      e.vector_lane_cycle_pj =
          r.positive_real(energy["vector_lane_cycle_pj"], energy.Mark(), "energy.vector_lane_cycle_pj", true);
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
    reader.fail(e.mark, fmt::format("not valid YAML: {}", core::echo(e.msg, 200)));
  }
  if (!root.IsDefined() || root.IsNull())
    reader.fail(YAML::Mark(),
                "the file is empty (expected a machine description: name, clock_ghz, "
                "dram, levels, pe)");
  return read_machine(reader, root, file);
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
