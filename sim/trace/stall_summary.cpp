#include "sim/trace/stall_summary.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace treesim::trace {
namespace {

using nlohmann::json;

std::uint64_t number(const json& e, const char* field, std::size_t index, const std::string& file) {
  if (!e.contains(field) || !e[field].is_number_unsigned())
    throw TraceFileError(
        fmt::format("{}: traceEvents[{}]: expected a non-negative integer '{}'", file, index, field));
  return e[field].get<std::uint64_t>();
}

// A string field, or "" when absent or of another type (value() would throw on the type).
std::string text_of(const json& e, const char* field) {
  return e.contains(field) && e[field].is_string() ? e[field].get<std::string>() : std::string();
}

// The deepest nesting of arrays and objects (outside strings): the parser recurses once per level,
// so a hostile file of a billion '[' must be refused before it is parsed.
std::size_t nesting(const std::string& text) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

TraceFile read_trace_file(const std::string& text, const std::string& file) {
  constexpr std::size_t kMaxNesting = 64;  // the writer nests 4 deep
  if (nesting(text) > kMaxNesting)
    throw TraceFileError(fmt::format(
        "{}: expected trace-event JSON, got arrays or objects nested over {} deep", file, kMaxNesting));
  const json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded())
    throw TraceFileError(fmt::format("{}: expected trace-event JSON, got text that is not JSON", file));
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array())
    throw TraceFileError(
        fmt::format("{}: expected an object with a 'traceEvents' array (written by --trace-json)", file));
  TraceFile t;
  if (doc.contains("otherData") && doc["otherData"].is_object()) {
    const json& o = doc["otherData"];
    if (o.contains("machine") && o["machine"].is_string()) t.machine = o["machine"];
    if (o.contains("kernel") && o["kernel"].is_string()) t.kernel = o["kernel"];
    if (o.contains("end_cycle") && o["end_cycle"].is_number_unsigned()) t.end_cycle = o["end_cycle"];
  }
  const json& events = doc["traceEvents"];
  std::map<std::pair<std::int64_t, std::int64_t>, std::string> names;
  for (const json& e : events)
    if (e.is_object() && text_of(e, "ph") == "M" && text_of(e, "name") == "thread_name" &&
        e.contains("args") && e["args"].is_object() && e["args"].contains("name") &&
        e["args"]["name"].is_string() && e.contains("pid") && e["pid"].is_number_integer() &&
        e.contains("tid") && e["tid"].is_number_integer())
      names[{e["pid"].get<std::int64_t>(), e["tid"].get<std::int64_t>()}] = e["args"]["name"];
  for (std::size_t i = 0; i < events.size(); ++i) {
    const json& e = events[i];
    if (!e.is_object()) throw TraceFileError(fmt::format("{}: traceEvents[{}]: expected an object", file, i));
    if (text_of(e, "ph") != "X") continue;
    if (!e.contains("args") || !e["args"].is_object())
      throw TraceFileError(
          fmt::format("{}: traceEvents[{}]: expected 'args' naming the instruction", file, i));
    const json& a = e["args"];
    const std::uint64_t ts = number(e, "ts", i, file), dur = number(e, "dur", i, file);
    const std::uint64_t index = number(a, "instr", i, file);
    if (index > (1u << 30))
      throw TraceFileError(fmt::format("{}: traceEvents[{}]: instr {} is too large", file, i, index));
    if (a.contains("kind")) {  // an instruction's own slice
      if (t.instrs.size() <= index) t.instrs.resize(index + 1);
      TracedInstr& in = t.instrs[index];
      in.label = text_of(e, "name");
      in.start = ts, in.end = ts + dur;
      in.ready = number(a, "ready", i, file);
      if (a.contains("waits_for")) in.waits_for = number(a, "waits_for", i, file);
      continue;
    }
    if (!e.contains("pid") || !e["pid"].is_number_integer() || !e.contains("tid") ||
        !e["tid"].is_number_integer())
      throw TraceFileError(fmt::format("{}: traceEvents[{}]: expected integer 'pid' and 'tid'", file, i));
    auto name = names.find({e["pid"].get<std::int64_t>(), e["tid"].get<std::int64_t>()});
    t.slices.push_back(
        {name == names.end() ? fmt::format("thread {}", e["tid"].get<std::int64_t>()) : name->second, index,
         ts, ts + dur});
  }
  if (t.instrs.empty())
    throw TraceFileError(fmt::format("{}: expected instruction slices (args with 'kind'), found none", file));
  return t;
}

namespace {

// Per instruction: whether it holds a traced resource, when the last of them came free before it,
// and the track and instruction that held it.
struct Free {
  bool any = false;
  std::uint64_t at = 0;
  std::string track;
  std::size_t by = 0;
};

std::vector<Free> when_free(const TraceFile& t) {
  // Each track's slices by start: the one before an instruction's slice is what held the resource.
  std::map<std::string, std::vector<const TracedSlice*>> tracks;
  for (const TracedSlice& s : t.slices) tracks[s.track].push_back(&s);
  std::vector<Free> free(t.instrs.size());
  for (auto& [track, list] : tracks) {
    std::stable_sort(list.begin(), list.end(),
                     [](const TracedSlice* a, const TracedSlice* b) { return a->start < b->start; });
    for (std::size_t k = 0; k < list.size(); ++k) {
      const TracedSlice& s = *list[k];
      if (s.instr >= free.size()) continue;
      Free& f = free[s.instr];
      const bool first_of_instr = k == 0 || list[k - 1]->instr != s.instr;
      if (!first_of_instr) continue;
      f.any = true;
      if (k > 0 && list[k - 1]->end >= f.at && list[k - 1]->end <= s.start) {
        f.at = list[k - 1]->end;
        f.track = track;
        f.by = list[k - 1]->instr;
      }
    }
  }
  return free;
}

}  // namespace

timing::CriticalPath trace_critical_path(const TraceFile& t) {
  const std::vector<Free> free = when_free(t);
  std::vector<std::uint64_t> longest(t.instrs.size(), 0);
  std::vector<timing::PathInstr> path(t.instrs.size());
  for (std::size_t i = 0; i < t.instrs.size(); ++i) {
    const TracedInstr& in = t.instrs[i];
    timing::PathInstr& p = path[i];
    p.label = in.label;
    p.kind = in.label.substr(0, in.label.find('#'));
    p.resource = p.kind;
    p.ready = in.ready, p.start = in.start, p.end = in.end;
    p.waits_for = in.waits_for;
    if (!free[i].track.empty()) p.held_by = free[i].by;
  }
  for (const TracedSlice& s : t.slices)
    if (s.instr < path.size() && s.end - s.start > longest[s.instr])
      longest[s.instr] = s.end - s.start, path[s.instr].resource = s.track;
  return timing::critical_path(path);
}

std::string path_table(const TraceFile& t, const timing::CriticalPath& path, std::size_t top) {
  // Neighbouring stretches on one resource read as one.
  struct Run {
    std::uint64_t from, to;
    std::string resource;
    std::size_t first, last;  // instructions
  };
  std::vector<Run> runs;
  for (const timing::PathStretch& s : path.stretches) {
    if (!runs.empty() && runs.back().resource == s.resource && runs.back().to == s.from) {
      runs.back().to = s.to, runs.back().last = s.instr;
      continue;
    }
    runs.push_back({s.from, s.to, s.resource, s.instr, s.instr});
  }
  // The `top` longest, shown in time order.
  std::vector<std::size_t> order(runs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return runs[a].to - runs[a].from > runs[b].to - runs[b].from;
  });
  if (order.size() > top) order.resize(top);
  std::sort(order.begin(), order.end());
  auto label = [&](std::size_t i) { return i < t.instrs.size() ? t.instrs[i].label : fmt::format("#{}", i); };
  std::string out = "critical path: " + timing::path_summary(path) + "\n";
  out += fmt::format("{} stretches; the {} longest, in time order:\n", runs.size(), order.size());
  out += fmt::format("{:>8}  {:>17}  {:<34}  {}\n", "cycles", "from-to", "on", "instructions");
  for (std::size_t k : order) {
    const Run& r = runs[k];
    const std::string who = r.first == r.last ? label(r.first) : label(r.first) + " .. " + label(r.last);
    out += fmt::format("{:>8}  {:>17}  {:<34}  {}\n", r.to - r.from, fmt::format("{}-{}", r.from, r.to),
                       r.resource, who);
  }
  return out;
}

std::vector<Stall> find_stalls(const TraceFile& t) {
  const std::vector<Free> free = when_free(t);
  std::vector<Stall> out;
  for (std::size_t i = 0; i < t.instrs.size(); ++i) {
    const TracedInstr& in = t.instrs[i];
    const Free& f = free[i];
    if (in.start > in.ready) {
      Stall s{i, in.ready, in.start, false, f.track, std::nullopt};
      if (!f.track.empty()) s.by = f.by;
      out.push_back(s);
    }
    // Holds are granted in program order, so an instruction waits for data only from when the one
    // before it started (it was issued then), not from the start of the run: the last requant of a
    // GEMM is not said to wait the whole run.
    const std::uint64_t issued = i > 0 ? t.instrs[i - 1].start : 0;
    const std::uint64_t from = std::max(f.at, issued);
    if (f.any && in.waits_for && in.ready > from) out.push_back({i, from, in.ready, true, "", in.waits_for});
  }
  std::stable_sort(out.begin(), out.end(), [](const Stall& a, const Stall& b) {
    return a.cycles() != b.cycles() ? a.cycles() > b.cycles() : a.instr < b.instr;
  });
  return out;
}

std::string stall_table(const TraceFile& t, const std::vector<Stall>& stalls, std::size_t top,
                        const std::string& file) {
  std::uint64_t total = 0;
  for (const Stall& s : stalls) total += s.cycles();
  auto label = [&](std::size_t i) { return i < t.instrs.size() ? t.instrs[i].label : fmt::format("#{}", i); };
  std::string out =
      fmt::format("{}: {} on {}, {} instructions, {} cycles\n", file, t.kernel.empty() ? "a run" : t.kernel,
                  t.machine.empty() ? "?" : t.machine, t.instrs.size(), t.end_cycle);
  out += fmt::format("{} stalls, {} cycles in all; the {} longest:\n", stalls.size(), total,
                     std::min(top, stalls.size()));
  out += fmt::format("{:>8}  {:>17}  {:<26}  {}\n", "cycles", "from-to", "instruction", "waited for");
  for (std::size_t k = 0; k < stalls.size() && k < top; ++k) {
    const Stall& s = stalls[k];
    std::string what;
    if (s.data)
      what = fmt::format("data: {} (its resources free)", label(*s.by));
    else if (s.by)
      what = fmt::format("{}: held by {}", s.resource, label(*s.by));
    else
      what = "a resource outside the traced units";
    out += fmt::format("{:>8}  {:>17}  {:<26}  {}\n", s.cycles(), fmt::format("{}-{}", s.from, s.to),
                       label(s.instr), what);
  }
  return out;
}

}  // namespace treesim::trace
