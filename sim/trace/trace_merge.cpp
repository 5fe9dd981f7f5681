#include "sim/trace/trace_merge.h"

#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace treesim::trace {

nlohmann::json merge_traces(const std::vector<TracePart>& parts) {
  using nlohmann::json;
  constexpr std::int64_t kPidsPerPart = 1000;                   // a part's levels' process ids are below
  constexpr std::int64_t kProgramsPid = std::int64_t{1} << 40;  // above every part's
  json events = json::array();
  events.push_back(
      {{"ph", "M"}, {"name", "process_name"}, {"pid", kProgramsPid}, {"args", {{"name", "programs"}}}});
  events.push_back(
      {{"ph", "M"}, {"name", "process_sort_index"}, {"pid", kProgramsPid}, {"args", {{"sort_index", -1}}}});
  std::uint64_t offset = 0;
  json machine;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    std::ifstream in(parts[i].path);
    json doc = json::parse(in, nullptr, false);
    if (doc.is_discarded() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array() ||
        !doc.contains("otherData") || !doc["otherData"].contains("end_cycle"))
      throw std::runtime_error(fmt::format("{}: not a treesim trace", parts[i].path));
    machine = doc["otherData"]["machine"];
    const std::uint64_t end = doc["otherData"]["end_cycle"].get<std::uint64_t>();
    // Each part's processes on their own (its units' threads may differ), named by its label.
    const std::int64_t pid_base = static_cast<std::int64_t>(i) * kPidsPerPart;
    for (json& e : doc["traceEvents"]) {
      if (e.contains("ts") && e["ts"].is_number_unsigned()) e["ts"] = e["ts"].get<std::uint64_t>() + offset;
      if (e.contains("pid") && e["pid"].is_number_integer()) {
        if (e["pid"].get<std::int64_t>() >= kPidsPerPart)
          throw std::runtime_error(
              fmt::format("{}: process id {} is out of range", parts[i].path, e["pid"].dump()));
        e["pid"] = e["pid"].get<std::int64_t>() + pid_base;
      }
      if (e.value("ph", "") == "M" && e.value("name", "") == "process_name" && e.contains("args") &&
          e["args"].contains("name") && e["args"]["name"].is_string())
        e["args"]["name"] = parts[i].label + ": " + e["args"]["name"].get<std::string>();
      events.push_back(std::move(e));
    }
    events.push_back({{"ph", "X"},
                      {"name", parts[i].label},
                      {"ts", offset},
                      {"dur", end},
                      {"pid", kProgramsPid},
                      {"tid", 0},
                      {"args", {{"program", i}, {"kernel", doc["otherData"].value("kernel", "")}}}});
    offset += end;
  }
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ns"},
          {"otherData",
           {{"generator", "treesim"},
            {"machine", machine},
            {"programs", parts.size()},
            {"time_unit", "1 us in the viewer = 1 machine cycle"},
            {"end_cycle", offset}}}};
}

}  // namespace treesim::trace
