// Default strides and the all-or-none stride rules (note §4.2), run on a parsed layout: row-major
// compact per target over its sub-axes in textual order, broadcast items last.
#include "sim/layout/parse.h"

#include <algorithm>
#include <map>

namespace treesim::layout {
namespace {

std::string target_label(const Target& t) {
  switch (t.kind) {
    case TargetKind::Addr:
      return "LM-address";
    case TargetKind::Level:
      return t.level;
    case TargetKind::Lane:
      return "W";
    case TargetKind::Time:
      return "Time";
  }
  return "";
}

std::string key_of(const Target& t) { return std::to_string(static_cast<int>(t.kind)) + t.level; }

Diagnostic at(const TensorLayout& l, const std::string& code, const std::string& msg, Span sp) {
  Diagnostic d;
  d.code = code;
  d.message = msg;
  d.source = l.source;
  d.column = sp.begin + 1;
  d.length = sp.length;
  return d;
}

}  // namespace

std::optional<Diagnostic> resolve_strides(TensorLayout& l, const std::vector<std::string>& level_names) {
  // Per target: its sub-axes in textual order (broadcast items last), as pointers to size/stride.
  struct Ref {
    std::uint64_t size;
    std::uint64_t* stride;
    bool written;
    bool is_broadcast;
    Span span;
    std::string text;
  };
  std::vector<std::string> order;
  std::map<std::string, std::vector<Ref>> groups;
  std::map<std::string, Target> targets;
  auto add = [&](const std::string& key, const Target& t, Ref r) {
    if (!groups.count(key)) order.push_back(key);
    targets[key] = t;
    r.text = l.source.empty() ? "" : l.source.substr(r.span.begin, r.span.length);
    groups[key].push_back(r);
  };
  for (auto& axis : l.axes)
    for (auto& s : axis)
      add(key_of(s.target), s.target, {s.size, &s.stride, s.stride_written, false, s.span, ""});
  for (auto& b : l.broadcasts) {
    if (b.whole_level) continue;  // sized by the machine; E120/E121 are checked when binding
    Target t{TargetKind::Level, b.level};
    add(key_of(t), t, {b.size, &b.stride, b.stride_written, true, b.span, ""});
  }
  for (const auto& key : order) {
    auto& refs = groups[key];
    bool any_written = false, all_written = true, has_dist = false, has_bcast = false;
    for (const auto& r : refs) {
      any_written |= r.written;
      all_written &= r.written;
      (r.is_broadcast ? has_bcast : has_dist) = true;
    }
    const Target& t = targets[key];
    if (has_dist && has_bcast && !all_written) {
      for (const auto& r : refs)
        if (!r.written)
          return at(l, "E111",
                    t.level + " is both distributed and broadcast: give every " + t.level +
                        " sub-axis an explicit stride ('" + r.text + "' has none)",
                    r.span);
    }
    if (any_written && !all_written) {
      const Ref* with = nullptr;
      for (const auto& r : refs)
        if (r.written) with = &r;
      for (const auto& r : refs)
        if (!r.written)
          return at(l, "E110",
                    target_label(t) + " sub-axes: give strides for all or none ('" + r.text +
                        "' has none, '" + with->text + "' has one)",
                    r.span);
    }
    if (!any_written) {
      std::uint64_t stride = 1;
      for (auto it = refs.rbegin(); it != refs.rend(); ++it) {
        *it->stride = stride;
        stride = (it->size != 0 && stride > (kMaxValue / it->size)) ? kMaxValue : stride * it->size;
      }
    }
  }
  auto rank_of = [&](const std::string& name) {
    return std::find(level_names.begin(), level_names.end(), name) - level_names.begin();
  };
  std::stable_sort(l.broadcasts.begin(), l.broadcasts.end(), [&](const Broadcast& a, const Broadcast& b) {
    return rank_of(a.level) < rank_of(b.level);
  });
  return std::nullopt;
}

}  // namespace treesim::layout
