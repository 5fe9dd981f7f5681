#include "sim/trace/vcd_trace.h"

#include <fnmatch.h>

#include <algorithm>
#include <map>
#include <ostream>

#include <fmt/format.h>

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

std::string value_text(std::uint64_t value, unsigned width, const std::string& id) {
  if (width == 1) return fmt::format("{}{}", value ? 1 : 0, id);
  return fmt::format("b{:b} {}", value, id);
}

}  // namespace

VcdTrace::SignalId VcdTrace::add_signal(int level, const std::string& name, unsigned width) {
  signals_.push_back({level, name, width});
  return signals_.size() - 1;
}

VcdTrace::SignalId VcdTrace::add_unit_signal(topology::Unit unit, int level, const std::string& name,
                                             unsigned width) {
  signals_.push_back({level, name, width, true, unit});
  return signals_.size() - 1;
}

void VcdTrace::change(std::uint64_t cycle, SignalId signal, std::uint64_t value) {
  changes_.push_back({cycle, changes_.size(), signal, value});
}

void VcdTrace::write(std::ostream& out, const topology::Topology& topo, const TraceFilter& filter,
                     std::uint64_t end_cycle) const {
  out << "$comment treesim trace: one time unit = one machine cycle $end\n";
  out << "$timescale 1 ns $end\n";
  auto depth_ok = [&](topology::Unit u) { return filter.depth < 0 || topo.level_of(u) < filter.depth; };
  auto matches = [&](topology::Unit u) {
    return filter.units.empty() || ::fnmatch(filter.units.c_str(), topo.path_name(u).c_str(), 0) == 0;
  };
  // keep[u]: u or one of its descendants is traced, so its scope is written.
  std::vector<char> keep(topo.total_units(), 0);
  for (topology::Unit u = topo.total_units(); u-- > 0;) {
    if (!depth_ok(u)) continue;
    if (matches(u)) keep[u] = 1;
    if (keep[u])
      if (auto p = topo.parent(u)) keep[*p] = 1;
  }
  std::map<int, std::vector<SignalId>> by_level;
  std::map<topology::Unit, std::vector<SignalId>> by_unit;
  for (SignalId s = 0; s < signals_.size(); ++s)
    (signals_[s].per_unit ? by_unit[signals_[s].unit] : by_level[signals_[s].level]).push_back(s);
  // Depth-first, so that scopes nest as the tree does.
  std::vector<char> declared(signals_.size(), 0);  // a change to an undeclared id would be invalid VCD
  std::vector<std::pair<topology::Unit, bool>> stack{{topo.board(), false}};
  while (!stack.empty()) {
    auto [u, closing] = stack.back();
    stack.pop_back();
    if (closing) {
      out << "$upscope $end\n";
      continue;
    }
    if (!keep[u]) continue;
    const std::string& path = topo.path_name(u);
    out << "$scope module " << path.substr(path.rfind('.') == std::string::npos ? 0 : path.rfind('.') + 1)
        << " $end\n";
    if (matches(u)) {
      for (const auto* list : {&by_level[topo.level_of(u)], &by_unit[u]}) {
        for (SignalId s : *list) {
          out << fmt::format("$var wire {} {} {} $end\n", signals_[s].width, vcd_id(s), signals_[s].name);
          declared[s] = 1;
        }
      }
    }
    stack.push_back({u, true});
    std::vector<topology::Unit> kids = topo.children(u);
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) stack.push_back({*it, false});
  }
  out << "$enddefinitions $end\n#0\n$dumpvars\n";
  for (SignalId s = 0; s < signals_.size(); ++s)
    if (declared[s]) out << value_text(0, signals_[s].width, vcd_id(s)) << "\n";
  out << "$end\n";
  std::vector<Change> sorted = changes_;
  std::sort(sorted.begin(), sorted.end(), [](const Change& a, const Change& b) {
    return a.cycle != b.cycle ? a.cycle < b.cycle : a.order < b.order;
  });
  std::uint64_t now = 0;
  for (const Change& c : sorted) {
    if (!declared[c.signal]) continue;
    if (c.cycle != now) {
      out << "#" << c.cycle << "\n";
      now = c.cycle;
    }
    out << value_text(c.value, signals_[c.signal].width, vcd_id(c.signal)) << "\n";
  }
  if (end_cycle > now) out << "#" << end_cycle << "\n";
}

}  // namespace treesim::trace
