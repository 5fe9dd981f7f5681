#include "tools/sweep_results.h"

#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "sim/core/echo.h"
#include "sim/io/atomic_file.h"
#include "sim/timing/cost_model.h"
#include "sim/timing/machine_summary.h"
#include "tools/cli.h"

namespace treesim::tools {
namespace {

using json = nlohmann::json;

// Report keys (reports.md) → CSV columns; per-level and per-unit columns follow the base machine.
std::vector<std::string> result_columns(const machine::MachineConfig& base) {
  std::vector<std::string> c{"status",          "error", "cycles",          "seconds",
                             "roofline_cycles", "bound", "dram_read_bytes", "dram_write_bytes"};
  for (const auto& level : base.levels)
    for (const char* key : {"down_sent_bytes", "down_delivered_bytes", "up_sent_bytes", "up_delivered_bytes"})
      c.push_back(level.name + "_" + key);
  c.push_back("macs");
  c.push_back("useful_macs");
  c.push_back("util_dram");
  for (timing::Unit unit : timing::machine_units(base))
    c.push_back(std::string("util_") + timing::unit_name(unit));
  for (const auto& level : base.levels)
    for (const char* dir : {".down", ".up"}) c.push_back("util_" + level.name + dir);
  for (const char* c2 :
       {"energy_pj", "verify", "peak_ops_per_second", "dram_bytes_per_second", "lm_peak_bytes"})
    c.push_back(c2);
  // What each level's link ceiling of a roofline needs: the bytes its busiest port carried (what
  // the level's bound counts) and one port's rate.
  for (const auto& level : base.levels)
    for (const char* key : {"busiest_down_port_bytes", "busiest_up_port_bytes", "down_port_bytes_per_second",
                            "up_port_bytes_per_second"})
      c.push_back(level.name + "_" + key);
  return c;
}

std::string text_of(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";
  return v.dump();
}

}  // namespace

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

SweepPlan make_plan(const SweepSpec& spec, const std::vector<SweepPoint>& points) {
  SweepPlan plan;
  plan.columns.push_back("index");
  for (const SweepAxis& a : spec.axes) {
    plan.axes.push_back(a.path);
    plan.columns.push_back(a.path);
  }
  for (const std::string& c : result_columns(spec.base)) plan.columns.push_back(c);
  if (spec.kernel == "mlp")  // run mlp's own figures
    for (const char* c : {"accuracy", "cycles_per_image", "activations_in_lm"}) plan.columns.push_back(c);
  for (const SweepPoint& p : points) plan.points.push_back(p.values);
  json options = json::array();
  for (const auto& [k, v] : spec.options) options.push_back({k, v});
  plan.identity = {{"kernel", spec.kernel}, {"options", options},    {"machine", spec.machine_text},
                   {"axes", plan.axes},     {"points", plan.points}, {"columns", plan.columns}};
  return plan;
}

namespace {

// A point's files, whichever exist.
constexpr const char* kPointFiles[] = {".yaml", ".json", ".result.json", ".stderr"};

void move_file(const std::string& from, const std::string& to) {
  std::error_code ec;
  if (!std::filesystem::exists(from, ec)) return;
  std::filesystem::rename(from, to, ec);
  if (ec)
    throw CliError(
        fmt::format("{}: cannot move it to {} ({})", core::echo(from, 0), core::echo(to, 0), ec.message()));
}

// The parts of two sweeps' identities that differ, other than their points, as words.
std::vector<std::string> differences(const json& old, const json& now) {
  std::vector<std::string> out;
  if (old.value("kernel", json()) != now.value("kernel", json()))
    out.push_back(fmt::format("kernel: {}, not {}", text_of(old.value("kernel", json())),
                              text_of(now.value("kernel", json()))));
  if (old.value("options", json()) != now.value("options", json())) out.push_back("kernel options");
  if (old.value("machine", json()) != now.value("machine", json())) out.push_back("base machine");
  if (old.value("axes", json()) != now.value("axes", json()))
    out.push_back("varied fields");
  else if (old.value("columns", json()) != now.value("columns", json()))
    out.push_back("result columns");
  return out;
}

}  // namespace

std::optional<GridChange> save_or_check_plan(const std::string& dir, const SweepPlan& plan) {
  const std::string path = dir + "/sweep.json";
  auto save = [&] {
    try {
      io::write_file_atomically(path, plan.identity.dump(2) + "\n");
    } catch (const std::runtime_error& e) {
      throw CliError(e.what());
    }
  };
  if (!std::filesystem::exists(path)) {
    std::error_code ec;
    std::filesystem::create_directories(dir + "/points", ec);
    if (ec)
      throw CliError(fmt::format("{}: cannot create the folder ({})", core::echo(dir, 0), ec.message()));
    save();
    return std::nullopt;
  }
  const SweepPlan old = load_plan(dir);
  if (old.identity == plan.identity) return std::nullopt;
  const std::vector<std::string> differ = differences(old.identity, plan.identity);
  if (!differ.empty()) {
    std::string what;
    for (const std::string& d : differ) what += (what.empty() ? "" : "; ") + d;
    throw CliError(
        fmt::format("{}: this folder holds the results of another sweep (other {}): choose another "
                    "--out",
                    core::echo(path, 0), what));
  }
  // Only the grid changed: a point is its values, so its files follow it to its new number.
  std::map<std::vector<std::string>, std::size_t> now;
  for (std::size_t j = 0; j < plan.points.size(); ++j) now.emplace(plan.points[j], j);
  GridChange change;
  const std::size_t old_count = old.points.size(), new_count = plan.points.size();
  auto parked = [&](std::size_t i, const char* suffix) {
    return fmt::format("{}/points/.regrid-{}{}", dir, i, suffix);
  };
  // Two steps, so that a point's new number may be another's old one.
  for (std::size_t i = 0; i < old_count; ++i)
    for (const char* suffix : kPointFiles)
      move_file(point_file(dir, i, old_count, suffix), parked(i, suffix));
  std::error_code ec;
  for (std::size_t i = 0; i < old_count; ++i) {
    auto it = now.find(old.points[i]);
    if (it != now.end()) {
      ++change.kept;
      for (const char* suffix : kPointFiles)
        move_file(parked(i, suffix), point_file(dir, it->second, new_count, suffix));
      now.erase(it);
      continue;
    }
    ++change.removed;
    std::filesystem::create_directories(dir + "/removed", ec);
    for (const char* suffix : kPointFiles)
      move_file(parked(i, suffix),
                dir + "/removed/" +
                    std::filesystem::path(point_file(dir, i, old_count, suffix)).filename().string());
  }
  change.added = now.size();
  save();
  return change;
}

SweepPlan load_plan(const std::string& dir) {
  const std::string path = dir + "/sweep.json";
  SweepPlan plan;
  try {
    plan.identity = json::parse(io::read_file(path));
    plan.axes = plan.identity.at("axes").get<std::vector<std::string>>();
    plan.columns = plan.identity.at("columns").get<std::vector<std::string>>();
    plan.points = plan.identity.at("points").get<std::vector<std::vector<std::string>>>();
  } catch (const std::exception&) {
    throw CliError(
        fmt::format("{}: not a sweep folder (no readable sweep.json; run `treesim sweep SPEC --out "
                    "DIR` first)",
                    core::echo(dir, 0)));
  }
  return plan;
}

std::size_t point_digits(std::size_t points) {
  return std::max<std::size_t>(4, fmt::format("{}", points > 0 ? points - 1 : 0).size());
}

std::string point_file(const std::string& dir, std::size_t index, std::size_t points,
                       const std::string& suffix) {
  return fmt::format("{}/points/{:0{}}{}", dir, index, point_digits(points), suffix);
}

PointResult result_from_report(const json& r, const machine::MachineConfig* machine) {
  PointResult out;
  out.status = "ok";
  auto& f = out.fields;
  f["cycles"] = text_of(r.value("cycles", json()));
  f["seconds"] = text_of(r.value("seconds", json()));
  if (r.contains("roofline")) {
    f["roofline_cycles"] = text_of(r["roofline"].value("cycles", json()));
    f["bound"] = text_of(r["roofline"].value("resource", json()));
  }
  if (r.contains("dram")) {
    f["dram_read_bytes"] = text_of(r["dram"].value("read_bytes", json()));
    f["dram_write_bytes"] = text_of(r["dram"].value("write_bytes", json()));
  }
  if (r.contains("levels"))
    for (const auto& [name, level] : r["levels"].items())
      for (const char* key : {"down_sent_bytes", "down_delivered_bytes", "up_sent_bytes",
                              "up_delivered_bytes", "busiest_down_port_bytes", "busiest_up_port_bytes"})
        f[name + "_" + key] = text_of(level.value(key, json()));
  if (r.contains("work")) {
    f["macs"] = text_of(r["work"].value("macs", json()));
    f["useful_macs"] = text_of(r["work"].value("useful_macs", json()));
  }
  if (r.contains("units"))
    for (const auto& [name, unit] : r["units"].items())
      f["util_" + name] = text_of(unit.value("utilization", json()));
  if (r.contains("energy_pj"))  // a report's breakdown, or run mlp's total
    f["energy_pj"] =
        text_of(r["energy_pj"].is_object() ? r["energy_pj"].value("total", json()) : r["energy_pj"]);
  if (r.contains("layers") && r["layers"].is_array()) {  // run mlp: its layers' figures summed
    std::uint64_t macs = 0, read = 0, written = 0;
    for (const json& l : r["layers"]) {
      macs += l.value("macs", std::uint64_t{0});
      read += l.value("dram_read_bytes", std::uint64_t{0});
      written += l.value("dram_write_bytes", std::uint64_t{0});
    }
    f["macs"] = std::to_string(macs);
    f["dram_read_bytes"] = std::to_string(read);
    f["dram_write_bytes"] = std::to_string(written);
  }
  for (const char* key : {"accuracy", "cycles_per_image", "activations_in_lm"})
    if (r.contains(key)) f[key] = text_of(r[key]);
  if (r.contains("verify")) f["verify"] = r["verify"].value("ok", false) ? "ok" : "failed";
  f["lm_peak_bytes"] = text_of(r.value("lm_peak_bytes_per_pe", json()));
  if (machine) {
    const timing::MachineSummary s = timing::summarize(*machine);
    f["peak_ops_per_second"] = json(s.peak_int8_ops_per_second).dump();
    f["dram_bytes_per_second"] = json(s.dram_bytes_per_second).dump();
    const timing::CostModel cost(*machine);
    for (std::size_t l = 0; l < machine->levels.size(); ++l)
      for (auto [d, key] : {std::pair{timing::Direction::kDown, "_down_port_bytes_per_second"},
                            {timing::Direction::kUp, "_up_port_bytes_per_second"}})
        f[machine->levels[l].name + key] =
            json(static_cast<double>(cost.rate(timing::Resource::port(l, d)).first) * machine->clock_ghz *
                 1e9)
                .dump();
  }
  return out;
}

void write_record(const std::string& path, const PointResult& result) {
  json j = {{"status", result.status}, {"error", result.error}, {"fields", result.fields}};
  try {
    io::write_file_atomically(path, j.dump(1) + "\n");
  } catch (const std::runtime_error& e) {
    throw CliError(e.what());
  }
}

std::optional<PointResult> read_record(const std::string& path) {
  if (!std::filesystem::exists(path)) return std::nullopt;
  try {
    const json j = json::parse(io::read_file(path));
    PointResult r;
    r.status = j.at("status").get<std::string>();
    r.error = j.at("error").get<std::string>();
    r.fields = j.at("fields").get<std::map<std::string, std::string>>();
    return r;
  } catch (const std::exception&) {
    return std::nullopt;  // unreadable: the point runs again
  }
}

CollectCounts collect(const std::string& dir) {
  const SweepPlan plan = load_plan(dir);
  CollectCounts counts;
  std::string csv;
  for (std::size_t c = 0; c < plan.columns.size(); ++c) csv += (c ? "," : "") + csv_field(plan.columns[c]);
  csv += "\n";
  for (std::size_t i = 0; i < plan.points.size(); ++i) {
    PointResult r;
    if (std::optional<PointResult> rec =
            read_record(point_file(dir, i, plan.points.size(), ".result.json"))) {
      r = *rec;
    } else {
      r.status = "missing";
    }
    (r.status == "ok" ? counts.ok : r.status == "failed" ? counts.failed : counts.missing)++;
    r.fields["index"] = std::to_string(i);
    for (std::size_t a = 0; a < plan.axes.size(); ++a) r.fields[plan.axes[a]] = plan.points[i][a];
    r.fields["status"] = r.status;
    r.fields["error"] = r.error;
    for (std::size_t c = 0; c < plan.columns.size(); ++c) {
      auto it = r.fields.find(plan.columns[c]);
      csv += (c ? "," : "") + csv_field(it == r.fields.end() ? "" : it->second);
    }
    csv += "\n";
  }
  try {
    io::write_file_atomically(dir + "/results.csv", csv);
  } catch (const std::runtime_error& e) {
    throw CliError(e.what());
  }
  return counts;
}

}  // namespace treesim::tools
