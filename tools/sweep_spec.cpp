#include "tools/sweep_spec.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "kernels/registry.h"
#include "sim/core/echo.h"
#include "sim/io/input_file.h"
#include "sim/machine/machine_file.h"
#include "sim/machine/machine_patch.h"
#include "tools/cli.h"
#include "tools/sweep_kernels.h"

namespace treesim::tools {
namespace {

// Sweeps larger than this are almost surely a mistake in the spec (and their folders unwieldy).
constexpr std::size_t kMaxPoints = 1'000'000;
constexpr std::uint64_t kMaxSpecBytes = std::uint64_t{1} << 20;

class SpecReader {
 public:
  explicit SpecReader(std::string file) : file_(std::move(file)) {}
  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message) const {
    throw CliError(fmt::format("{}:{}:{}: {}", core::echo(file_, 0), mark.line >= 0 ? mark.line + 1 : 1,
                               mark.column >= 0 ? mark.column + 1 : 1, message));
  }
  std::string scalar(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar() || node.Scalar().empty())
      fail(node.Mark(), fmt::format("{}: expected a value (a number, size, word or true/false)", what));
    return node.Scalar();
  }

 private:
  std::string file_;
};

// "timing-only", "verify" (where the kernel's run takes it) and every option of the kernel are
// allowed; the rest is the sweep's own business.
bool is_flag_option(const kernels::Kernel& kernel, const std::string& name, bool& known) {
  known = true;
  if (name == "timing-only" || (name == "verify" && takes_verify(kernel))) return true;
  for (const kernels::OptionSpec& o : kernel.options)
    if (o.name == name) return o.kind == kernels::OptionKind::kFlag;
  known = false;
  return false;
}

std::string option_names(const kernels::Kernel& kernel) {
  std::string out;
  for (const kernels::OptionSpec& o : kernel.options) out += o.name + ", ";
  return out + (takes_verify(kernel) ? "timing-only, verify" : "timing-only");
}

void check_option(const SpecReader& r, const kernels::Kernel& kernel, const YAML::Node& key,
                  const std::string& value, const YAML::Node& value_node) {
  bool known = false;
  const bool flag = is_flag_option(kernel, key.Scalar(), known);
  if (!known)
    r.fail(key.Mark(), fmt::format("'{}' is neither a machine field (name, clock_ghz, dram.*, levels[L].*, "
                                   "pe.*, energy.*) nor an option of {} ({})",
                                   core::echo(key.Scalar(), 100), kernel.name, option_names(kernel)));
  if (flag && value != "true" && value != "false")
    r.fail(value_node.Mark(), fmt::format("'{}' is a flag: expected true or false, got '{}'", key.Scalar(),
                                          core::echo(value, 100)));
}

std::vector<SweepAxis> read_axes(const SpecReader& r, const YAML::Node& map, const char* section,
                                 const kernels::Kernel& kernel, std::set<std::string>& seen) {
  std::vector<SweepAxis> axes;
  if (!map.IsMap())
    r.fail(map.Mark(), fmt::format("'{}': expected a mapping of field → list of values", section));
  for (const auto& entry : map) {
    SweepAxis axis;
    axis.path = r.scalar(entry.first, section);
    if (!seen.insert(axis.path).second)
      r.fail(entry.first.Mark(), fmt::format("'{}' is given twice (in options, grid or zip)", axis.path));
    axis.machine = machine::is_machine_field_path(axis.path);
    if (!entry.second.IsSequence() || entry.second.size() == 0)
      r.fail(entry.second.Mark(),
             fmt::format("{}.{}: expected a non-empty list of values", section, axis.path));
    for (const YAML::Node& v : entry.second) {
      axis.values.push_back(r.scalar(v, fmt::format("{}.{}", section, axis.path)));
      if (!axis.machine) check_option(r, kernel, entry.first, axis.values.back(), v);
    }
    axes.push_back(std::move(axis));
  }
  return axes;
}

}  // namespace

SweepSpec load_sweep_spec(const std::string& path) {
  std::string text;
  try {
    text = io::read_input_file(path, kMaxSpecBytes, "sweep spec");
  } catch (const io::InputFileError& e) {
    throw CliError(fmt::format("{}:1:1: {}", core::echo(path, 0), e.reason()));
  }
  return parse_sweep_spec(text, path);
}

SweepSpec parse_sweep_spec(const std::string& text, const std::string& path) {
  SweepSpec spec;
  spec.file = path;
  SpecReader r(path);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    r.fail(e.mark, fmt::format("not valid YAML: {}", core::echo(e.msg, 200)));
  }
  if (!root.IsMap())
    r.fail(root.Mark(), "expected a sweep spec (a mapping with machine, kernel, options, grid, zip)");
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    if (key != "machine" && key != "kernel" && key != "options" && key != "grid" && key != "zip")
      r.fail(entry.first.Mark(),
             fmt::format("unknown key '{}' (expected one of: machine, kernel, options, grid, zip)",
                         core::echo(key, 100)));
  }
  for (const char* key : {"machine", "kernel"})
    if (!root[key]) r.fail(root.Mark(), fmt::format("'{}' is missing (it is required)", key));
  std::filesystem::path machine = r.scalar(root["machine"], "machine");
  if (machine.is_relative()) machine = std::filesystem::path(path).parent_path() / machine;
  spec.machine_path = machine.lexically_normal().string();
  spec.base = load_machine_or_throw(spec.machine_path);
  try {  // read again for the points' files (it was read a moment ago: only a race fails here)
    spec.machine_text = io::read_input_file(spec.machine_path, io::kMaxMachineFileBytes, "machine file");
  } catch (const io::InputFileError& e) {
    throw CliError(fmt::format("{}: {}", core::echo(spec.machine_path), e.reason()));
  }

  spec.kernel = r.scalar(root["kernel"], "kernel");
  const kernels::Kernel* kernel = sweep_kernel(spec.kernel);
  if (!kernel) {
    std::string names;
    for (const kernels::Kernel& k : kernels::registry()) names += (names.empty() ? "" : ", ") + k.name;
    names += ", mlp";
    r.fail(root["kernel"].Mark(),
           fmt::format("unknown kernel '{}' (the kernels are {})", core::echo(spec.kernel, 100), names));
  }
  std::set<std::string> seen;
  if (const YAML::Node options = root["options"]) {
    if (!options.IsMap()) r.fail(options.Mark(), "'options': expected a mapping of option → value");
    for (const auto& entry : options) {
      const std::string name = r.scalar(entry.first, "options");
      const std::string value = r.scalar(entry.second, "options." + name);
      if (machine::is_machine_field_path(name))
        r.fail(entry.first.Mark(),
               fmt::format("'{}' is a machine field: vary it in grid or zip, or set it in "
                           "the machine file",
                           name));
      check_option(r, *kernel, entry.first, value, entry.second);
      seen.insert(name);
      spec.options.emplace_back(name, value);
    }
  }
  if (const YAML::Node grid = root["grid"]) spec.axes = read_axes(r, grid, "grid", *kernel, seen);
  spec.grid_axes = spec.axes.size();
  if (const YAML::Node zip = root["zip"]) {
    std::vector<SweepAxis> zipped = read_axes(r, zip, "zip", *kernel, seen);
    for (const SweepAxis& a : zipped)
      if (a.values.size() != zipped.front().values.size())
        r.fail(zip.Mark(),
               fmt::format("zip: the lists must have equal lengths ('{}' has {}, '{}' has {})",
                           zipped.front().path, zipped.front().values.size(), a.path, a.values.size()));
    spec.axes.insert(spec.axes.end(), zipped.begin(), zipped.end());
  }
  std::size_t points = 1;
  for (std::size_t a = 0; a < spec.axes.size(); ++a) {
    if (a > spec.grid_axes) continue;  // the zipped lists count once
    points *= spec.axes[a].values.size();
    if (points > kMaxPoints)
      r.fail(root.Mark(), fmt::format("more than {} points: split the sweep", kMaxPoints));
  }
  // A machine path that addresses nothing, or names no field of a machine file (a misspelt one),
  // is the spec's error, whatever the values: every point would fail alike. A value that one
  // point's machine cannot take fails that point only.
  if (!expand(spec).empty()) {
    std::string error;
    const std::string yaml = point_machine_yaml(spec, expand(spec).front(), error);
    if (!error.empty()) r.fail(YAML::Mark(), error);
    try {
      machine::parse_machine_yaml(yaml, spec.machine_path);
    } catch (const machine::MachineFileError& e) {
      if (e.kind() == machine::MachineFileError::Kind::kUnknownField)
        r.fail(YAML::Mark(),
               fmt::format("machine: {} (in {})", e.message(), core::echo(spec.machine_path, 0)));
    }
  }
  return spec;
}

std::vector<SweepPoint> expand(const SweepSpec& spec) {
  // Odometer over the grid axes, then the zip index.
  std::vector<std::size_t> sizes;
  for (std::size_t a = 0; a < spec.grid_axes; ++a) sizes.push_back(spec.axes[a].values.size());
  if (spec.axes.size() > spec.grid_axes) sizes.push_back(spec.axes[spec.grid_axes].values.size());
  std::vector<SweepPoint> points;
  std::vector<std::size_t> at(sizes.size(), 0);
  for (;;) {
    SweepPoint p;
    p.index = points.size();
    for (std::size_t a = 0; a < spec.axes.size(); ++a)
      p.values.push_back(spec.axes[a].values[at[std::min(a, spec.grid_axes)]]);
    points.push_back(std::move(p));
    std::size_t d = sizes.size();
    while (d > 0 && ++at[d - 1] == sizes[d - 1]) at[--d] = 0;
    if (d == 0) break;
  }
  return points;
}

std::string point_machine_yaml(const SweepSpec& spec, const SweepPoint& point, std::string& error) {
  std::vector<machine::FieldSetting> settings;
  for (std::size_t a = 0; a < spec.axes.size(); ++a)
    if (spec.axes[a].machine) settings.push_back({spec.axes[a].path, point.values[a]});
  machine::PatchResult patched = machine::patch_machine_yaml(spec.machine_text, settings);
  if (!patched.errors.empty())
    error = fmt::format("machine field '{}': {} (in {})", patched.errors.front().where,
                        patched.errors.front().what, core::echo(spec.machine_path, 0));
  return patched.yaml;
}

std::vector<std::string> point_run_args(const SweepSpec& spec, const SweepPoint& point) {
  std::vector<std::string> args{spec.kernel};
  auto add = [&](const std::string& name, const std::string& value) {
    bool known = false;
    const bool flag = is_flag_option(*sweep_kernel(spec.kernel), name, known);
    if (flag) {
      if (value == "true") args.push_back(kernels::option_flag(name));
      return;
    }
    args.push_back(kernels::option_flag(name));
    args.push_back(value);
  };
  for (const auto& [name, value] : spec.options) add(name, value);
  for (std::size_t a = 0; a < spec.axes.size(); ++a)
    if (!spec.axes[a].machine) add(spec.axes[a].path, point.values[a]);
  return args;
}

}  // namespace treesim::tools
