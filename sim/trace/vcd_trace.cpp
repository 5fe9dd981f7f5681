#include "sim/trace/vcd_trace.h"

#include <algorithm>
#include <map>
#include <ostream>
#include <sstream>

#include <fmt/format.h>

#include "sim/trace/timeline_key.h"

namespace treesim::trace {
namespace {

// VCD identifier codes: printable ASCII 33..126, shortest first.
std::string vcd_id(std::size_t n) {
  std::string id;
  do {
    id.push_back(static_cast<char>(33 + n % 94));
    n /= 94;
  } while (n > 0);
  return id;
}

// Ports and DRAM show the bytes in flight; a PE unit shows busy only.
bool has_bytes(Resource r) { return r.moves_bytes(); }

enum class Kind : std::uint8_t { kBit, kVector, kText };

struct Change {
  std::uint64_t cycle;
  std::size_t id;
  Kind kind;
  std::uint64_t value;
  std::string text;  // a string signal's value
};

std::string value_text(Kind kind, std::size_t id, std::uint64_t value, const std::string& text) {
  switch (kind) {
    case Kind::kBit:
      return fmt::format("{}{}\n", value, vcd_id(id));
    case Kind::kVector:
      return fmt::format("b{:b} {}\n", value, vcd_id(id));
    default:
      return fmt::format("s{} {}\n", text, vcd_id(id));
  }
}

// (cycle, busy, work) at each change of a resource held by `holds` (in time order, never overlapping).
std::vector<std::tuple<std::uint64_t, bool, std::uint64_t>> busy_changes(const std::vector<Hold>& holds) {
  std::vector<std::tuple<std::uint64_t, bool, std::uint64_t>> out;
  for (std::size_t i = 0; i < holds.size(); ++i) {
    out.emplace_back(holds[i].start, true, holds[i].work);
    if (i + 1 < holds.size() && holds[i + 1].start == holds[i].end) continue;  // the next takes over
    out.emplace_back(holds[i].end, false, 0);
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::uint64_t, std::string>> instruction_changes(const std::vector<Hold>& holds,
                                                                       const TraceLog& log) {
  // Events at each cycle: ends before starts, so back-to-back holds hand over without a gap.
  std::vector<std::tuple<std::uint64_t, int, std::size_t>> events;
  for (const Hold& h : holds) {
    events.emplace_back(h.start, 1, h.instr);
    events.emplace_back(h.end, 0, h.instr);
  }
  std::sort(events.begin(), events.end());
  std::map<std::size_t, int> active;
  std::vector<std::pair<std::uint64_t, std::string>> out;
  std::string now = kIdle;
  for (std::size_t i = 0; i < events.size();) {
    const std::uint64_t t = std::get<0>(events[i]);
    for (; i < events.size() && std::get<0>(events[i]) == t; ++i) {
      const std::size_t instr = std::get<2>(events[i]);
      if (std::get<1>(events[i]) == 1) {
        ++active[instr];
      } else if (--active[instr] == 0) {
        active.erase(instr);
      }
    }
    std::string label;
    for (const auto& [instr, count] : active) {
      if (!label.empty()) label += '+';
      label +=
          instr < log.instructions().size() ? log.instructions()[instr].label : fmt::format("#{}", instr);
    }
    if (label.empty()) label = kIdle;
    if (label != now) out.emplace_back(t, label);
    now = label;
  }
  return out;
}

void write_vcd(std::ostream& out, const TraceLog& log, const topology::Topology& topo,
               const TraceFilter& filter) {
  const Selection sel = select_units(topo, filter, log, false);
  std::ostringstream decl;
  std::vector<Change> changes;
  std::size_t next_id = 0;
  std::vector<std::pair<std::size_t, Kind>> initial;
  // One identifier (or pair: busy, bytes) per distinct waveform.
  KeyTable<std::size_t> ids;
  auto var = [&](unsigned width, std::size_t id, const std::string& name, bool text) {
    decl << fmt::format("$var {} {} {} {} $end\n", text ? "string" : "wire", width, vcd_id(id), name);
  };
  std::vector<topology::Unit> open;  // the scopes written, innermost last
  for (topology::Unit u : tree_order(topo)) {
    if (!sel.scope[u]) continue;
    while (!open.empty() && open.back() != *topo.parent(u)) {
      decl << "$upscope $end\n";
      open.pop_back();
    }
    const std::string path = topo.path_name(u);
    decl << "$scope module " << path.substr(path.rfind('.') == std::string::npos ? 0 : path.rfind('.') + 1)
         << " $end\n";
    open.push_back(u);
    if (!sel.traced[u]) continue;
    const int level = topo.level_of(u);
    std::vector<Hold> all;  // every hold of the unit, for its instruction string
    for (Resource r : log.resources(level)) {
      std::vector<Hold> holds = log.holds(u, level, r);
      all.insert(all.end(), holds.begin(), holds.end());
      TimelineKey key;
      key.add(static_cast<int>(r.index()), holds);
      const std::size_t* found = ids.find(key);
      std::size_t id = found ? *found : next_id;
      if (!found) {
        next_id += has_bytes(r) ? 2 : 1;
        ids.insert(std::move(key), id);
        initial.push_back({id, Kind::kBit});
        if (has_bytes(r)) initial.push_back({id + 1, Kind::kVector});
        for (const auto& [cycle, busy, work] : busy_changes(holds)) {
          changes.push_back({cycle, id, Kind::kBit, busy ? 1u : 0u, {}});
          if (has_bytes(r)) changes.push_back({cycle, id + 1, Kind::kVector, work, {}});
        }
      }
      var(1, id, std::string(timing::trace_name(r)) + "_busy", false);
      if (has_bytes(r)) var(32, id + 1, std::string(timing::trace_name(r)) + "_bytes", false);
    }
    std::stable_sort(all.begin(), all.end(), [](const Hold& a, const Hold& b) { return a.start < b.start; });
    TimelineKey key;
    key.add(-1, all);
    const std::size_t* found = ids.find(key);
    const std::size_t id = found ? *found : next_id;
    if (!found) {
      ++next_id;
      ids.insert(std::move(key), id);
      initial.push_back({id, Kind::kText});
      for (auto& [cycle, label] : instruction_changes(all, log))
        changes.push_back({cycle, id, Kind::kText, 0, std::move(label)});
    }
    var(1, id, "instr", true);
  }
  for (; !open.empty(); open.pop_back()) decl << "$upscope $end\n";

  out << "$comment treesim trace: one time unit = one machine cycle $end\n";
  out << "$timescale 1 ns $end\n";
  out << decl.str();
  out << "$enddefinitions $end\n#0\n$dumpvars\n";
  for (const auto& [id, kind] : initial) out << value_text(kind, id, 0, kIdle);
  out << "$end\n";
  std::stable_sort(changes.begin(), changes.end(),
                   [](const Change& a, const Change& b) { return a.cycle < b.cycle; });
  std::uint64_t now = 0;
  for (const Change& c : changes) {
    if (c.cycle != now) {
      out << "#" << c.cycle << "\n";
      now = c.cycle;
    }
    out << value_text(c.kind, c.id, c.value, c.text);
  }
  if (log.end_cycle > now) out << "#" << log.end_cycle << "\n";
}

}  // namespace treesim::trace
