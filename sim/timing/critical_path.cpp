#include "sim/timing/critical_path.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace treesim::timing {
namespace {

bool is_mac(const std::string& kind) {
  return kind == "mac" || kind == "ternary_mac" || kind == "sparse_mac";
}

}  // namespace

CriticalPath critical_path(const std::vector<PathInstr>& instrs) {
  CriticalPath path;
  if (instrs.empty()) return path;
  std::size_t cur = 0;
  for (std::size_t i = 0; i < instrs.size(); ++i)
    if (instrs[i].end >= instrs[cur].end) cur = i;
  path.cycles = instrs[cur].end;
  std::uint64_t t = instrs[cur].end;  // the path is known from t to the end
  std::vector<PathStretch> backwards;
  for (;;) {
    const PathInstr& in = instrs[cur];
    if (t > in.start) backwards.push_back({cur, in.start, t, in.resource});
    t = std::min(t, in.start);
    if (t == 0) break;
    // What it waited for: a resource, its data, or its issue (the instruction before it starting).
    std::optional<std::size_t> pred;
    if (in.start > in.ready && in.held_by && *in.held_by < cur) pred = in.held_by;
    if (!pred && in.waits_for && *in.waits_for < cur) pred = in.waits_for;
    if (!pred && cur > 0) pred = cur - 1;
    if (!pred) {  // nothing before it: the run's start, idle
      backwards.push_back({cur, 0, t, "issue"});
      break;
    }
    const PathInstr& p = instrs[*pred];
    if (p.end < t) {  // a gap the predecessor does not cover (its issue, a latency)
      backwards.push_back({*pred, p.end, t, "issue"});
      t = p.end;
    }
    cur = *pred;
  }
  path.stretches.assign(backwards.rbegin(), backwards.rend());
  for (const PathStretch& s : path.stretches) path.by_resource[s.resource] += s.to - s.from;
  std::optional<std::uint64_t> mac_end;
  for (const PathInstr& in : instrs)
    if (is_mac(in.kind)) mac_end = std::max(mac_end.value_or(0), in.end);
  if (mac_end && *mac_end < path.cycles) {
    path.after_last_mac = path.cycles - *mac_end;
    for (const PathStretch& s : path.stretches) {
      if (s.to <= *mac_end || s.resource == "issue") continue;
      const std::string& kind = instrs[s.instr].kind;
      if (std::find(path.after_last_mac_kinds.begin(), path.after_last_mac_kinds.end(), kind) ==
          path.after_last_mac_kinds.end())
        path.after_last_mac_kinds.push_back(kind);
    }
  }
  return path;
}

std::string path_summary(const CriticalPath& path) {
  if (path.cycles == 0) return "empty";
  std::vector<std::pair<std::string, std::uint64_t>> shares(path.by_resource.begin(), path.by_resource.end());
  std::stable_sort(shares.begin(), shares.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [resource, cycles] : shares) {
    const double percent = 100.0 * static_cast<double>(cycles) / static_cast<double>(path.cycles);
    if (percent < 1) continue;
    out += fmt::format("{}{:.0f}% {}", out.empty() ? "" : ", ", percent, resource);
  }
  if (out.empty()) out = "no resource above 1%";
  if (path.after_last_mac > 0 && !path.after_last_mac_kinds.empty()) {
    std::string kinds;
    for (const std::string& k : path.after_last_mac_kinds) kinds += (kinds.empty() ? "" : ", ") + k;
    out += fmt::format("; {:.0f}% after the last MAC ({})",
                       100.0 * static_cast<double>(path.after_last_mac) / static_cast<double>(path.cycles),
                       kinds);
  }
  return out;
}

}  // namespace treesim::timing
