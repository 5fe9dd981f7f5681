#include "sim/trace/trace_json.h"

#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace treesim::trace {
namespace {

using nlohmann::json;

// Process ids: the board 1, level l at l + 2 (0 is left alone: some viewers treat it specially).
int pid_of(int level) { return level + 2; }

json metadata(const char* name, int pid, int tid, json args) {
  json e = {{"ph", "M"}, {"name", name}, {"pid", pid}, {"args", std::move(args)}};
  if (tid >= 0) e["tid"] = tid;
  return e;
}

// Lanes for slices that may overlap (instructions): each slice goes to the first lane free at its start,
// so slices of one lane never overlap (trace-event viewers need X slices of a thread to nest).
std::vector<std::size_t> lanes(const std::vector<InstrSpan>& spans, std::size_t& count) {
  std::vector<std::size_t> order(spans.size()), lane(spans.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return spans[a].start < spans[b].start; });
  std::vector<std::uint64_t> free_at;
  for (std::size_t i : order) {
    std::size_t l = 0;
    while (l < free_at.size() && free_at[l] > spans[i].start) ++l;
    if (l == free_at.size()) free_at.push_back(0);
    free_at[l] = spans[i].end;
    lane[i] = l;
  }
  count = free_at.size();
  return lane;
}

}  // namespace

void write_trace_json(std::ostream& out, const TraceLog& log, const topology::Topology& topo,
                      const TraceFilter& filter) {
  const Selection sel = select_units(topo, filter, log, true);
  json events = json::array();
  // Processes: the board and each level.
  for (int level = topology::kBoardLevel; level < static_cast<int>(topo.level_count()); ++level) {
    events.push_back(metadata("process_name", pid_of(level), -1,
                              {{"name", level == topology::kBoardLevel ? "board" : topo.level_name(level)}}));
    events.push_back(metadata("process_sort_index", pid_of(level), -1, {{"sort_index", level + 1}}));
  }
  int tid = 1;
  // The instructions, on the board: one slice each from its start to its end.
  std::size_t lane_count = 0;
  const std::vector<std::size_t> lane = lanes(log.instructions(), lane_count);
  const int board = pid_of(topology::kBoardLevel);
  for (std::size_t l = 0; l < lane_count; ++l) {
    events.push_back(metadata(
        "thread_name", board, tid + static_cast<int>(l),
        {{"name", lane_count == 1 ? std::string("instructions") : fmt::format("instructions {}", l)}}));
    events.push_back(metadata("thread_sort_index", board, tid + static_cast<int>(l), {{"sort_index", l}}));
  }
  for (std::size_t i = 0; i < log.instructions().size(); ++i) {
    const InstrSpan& s = log.instructions()[i];
    json args = {{"instr", i}, {"kind", s.kind}, {"ready", s.ready}};
    if (s.waits_for) args["waits_for"] = *s.waits_for;
    for (const auto& [k, v] : s.numbers) args[k] = v;
    for (const auto& [k, v] : s.texts) args[k] = v;
    events.push_back({{"ph", "X"},
                      {"name", s.label},
                      {"cat", s.kind},
                      {"ts", s.start},
                      {"dur", s.end - s.start},
                      {"pid", board},
                      {"tid", tid + static_cast<int>(lane[i])},
                      {"args", std::move(args)}});
  }
  tid += static_cast<int>(lane_count);
  // Every traced unit's resources.
  for (topology::Unit u : tree_order(topo)) {
    if (!sel.traced[u]) continue;
    const int level = topo.level_of(u), pid = pid_of(level);
    const std::string path = topo.path_name(u);
    for (Resource r : log.resources(level)) {
      const std::string track = path + "." + timing::trace_name(r);
      const std::uint64_t alike = sel.alike[u];
      events.push_back(
          metadata("thread_name", pid, tid,
                   {{"name", alike > 1 ? fmt::format("{} (and {} alike)", track, alike - 1) : track}}));
      events.push_back(metadata("thread_sort_index", pid, tid, {{"sort_index", tid}}));
      const std::vector<Hold> holds = log.holds(u, level, r);
      const bool bytes = r.moves_bytes();
      for (std::size_t i = 0; i < holds.size(); ++i) {
        const Hold& h = holds[i];
        const InstrSpan* s = h.instr < log.instructions().size() ? &log.instructions()[h.instr] : nullptr;
        events.push_back({{"ph", "X"},
                          {"name", s ? s->label : fmt::format("#{}", h.instr)},
                          {"cat", s ? s->kind : std::string("instr")},
                          {"ts", h.start},
                          {"dur", h.end - h.start},
                          {"pid", pid},
                          {"tid", tid},
                          {"args", {{"instr", h.instr}, {timing::work_name(r), h.work}}}});
        if (!bytes) continue;
        events.push_back({{"ph", "C"},
                          {"name", track + " bytes"},
                          {"ts", h.start},
                          {"pid", pid},
                          {"args", {{"bytes", h.work}}}});
        if (i + 1 < holds.size() && holds[i + 1].start == h.end) continue;
        events.push_back(
            {{"ph", "C"}, {"name", track + " bytes"}, {"ts", h.end}, {"pid", pid}, {"args", {{"bytes", 0}}}});
      }
      ++tid;
    }
  }
  json doc = {{"traceEvents", std::move(events)},
              {"displayTimeUnit", "ns"},
              {"otherData",
               {{"generator", "treesim"},
                {"machine", log.machine},
                {"kernel", log.kernel},
                {"time_unit", "1 us in the viewer = 1 machine cycle"},
                {"end_cycle", log.end_cycle}}}};
  out << doc.dump() << "\n";
}

}  // namespace treesim::trace
