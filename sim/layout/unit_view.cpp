#include "sim/layout/unit_view.h"

#include <algorithm>

#include <fmt/format.h>

namespace treesim::layout {

std::vector<IndexRun> to_runs(const std::vector<std::uint64_t>& v) {
  std::vector<IndexRun> runs;
  for (std::size_t i = 0; i < v.size();) {
    IndexRun r{v[i], 1, 1};
    if (i + 1 < v.size()) {
      r.step = v[i + 1] - v[i];
      r.count = 2;
      while (i + r.count < v.size() && v[i + r.count] - v[i + r.count - 1] == r.step) ++r.count;
    }
    runs.push_back(r);
    i += r.count;
  }
  return runs;
}

std::string runs_string(const std::vector<IndexRun>& runs) {
  std::string out;
  for (const auto& r : runs) {
    if (!out.empty()) out += ", ";
    if (r.count == 1)
      out += std::to_string(r.start);
    else if (r.step == 1)
      out += fmt::format("{}..{}", r.start, r.start + r.count - 1);
    else
      out += fmt::format("{}..{} step {}", r.start, r.start + (r.count - 1) * r.step, r.step);
  }
  return out;
}

UnitView unit_view(const BoundLayout& b, const std::vector<std::uint64_t>& units) {
  UnitView view;
  const std::size_t levels = b.level_count();
  // The digits of each level's parts that give the unit's coordinate there (the layout's decoder).
  std::vector<std::uint64_t> digit(b.parts().size(), 0);
  std::vector<bool> fixed(b.parts().size(), false);
  for (std::size_t lv = 0; lv < levels; ++lv) {
    if (units[lv] >= b.fanout(lv)) return view;
    const auto& ps = b.target_parts(static_cast<int>(lv));
    if (ps.empty()) continue;
    if (!b.decode(static_cast<int>(lv), units[lv], digit.data())) return view;  // a unit no element reaches
    for (std::size_t i : ps) fixed[i] = true;
  }
  view.used = true;
  view.addresses = b.cosize(b.addr_target());
  view.slots = 1;
  view.elements = 1;
  for (std::size_t d = 0; d < b.rank(); ++d) {
    // An axis with at most one free part (a PE's rows of a per-PE block) is one arithmetic run:
    // written down directly, not enumerated (a board's 8,192 views of a long block add up).
    std::uint64_t base = 0, free_size = 1, free_weight = 1, free_parts = 0;
    for (std::size_t i = 0; i < b.distribution_part_count(); ++i) {
      const auto& p = b.parts()[i];
      if (p.axis != static_cast<int>(d)) continue;
      if (fixed[i])
        base += digit[i] * p.weight;
      else if (p.size > 1)
        ++free_parts, free_size = p.size, free_weight = p.weight;
    }
    if (free_parts <= 1 && free_weight > 0) {
      const std::uint64_t limit = b.shape()[d];
      view.slots *= free_size;
      view.elements *= base >= limit ? 0 : std::min(free_size, (limit - base - 1) / free_weight + 1);
      view.axes.push_back({IndexRun{base, free_size, free_size > 1 ? free_weight : 1}});
      continue;
    }
    std::vector<std::uint64_t> xs{0};
    for (std::size_t i = 0; i < b.distribution_part_count(); ++i) {
      const auto& p = b.parts()[i];
      if (p.axis != static_cast<int>(d)) continue;
      std::vector<std::uint64_t> next;
      if (fixed[i]) {
        for (auto x : xs) next.push_back(x + digit[i] * p.weight);
      } else {
        for (auto x : xs)
          for (std::uint64_t c = 0; c < p.size; ++c) next.push_back(x + c * p.weight);
      }
      xs.swap(next);
    }
    if (!std::is_sorted(xs.begin(), xs.end())) std::sort(xs.begin(), xs.end());  // parts outer first: sorted
    view.slots *= xs.size();
    view.elements *= static_cast<std::uint64_t>(
        std::count_if(xs.begin(), xs.end(), [&](std::uint64_t x) { return x < b.shape()[d]; }));
    view.axes.push_back(to_runs(xs));
  }
  // Replica id: broadcast digits, then omitted levels (note §4.3.7).
  std::uint64_t replica = 0;
  std::size_t bcast = b.parts().size() - b.distribution_part_count();
  for (std::size_t j = 0; j < bcast; ++j) {
    const auto& p = b.parts()[b.distribution_part_count() + j];
    replica = replica * p.size + digit[b.distribution_part_count() + j];
  }
  for (std::size_t lv : b.omitted_levels()) replica = replica * b.fanout(lv) + units[lv];
  view.replica = replica;
  return view;
}

std::string summary(const BoundLayout& b, const std::string& type_name) {
  std::string axes;
  for (std::size_t d = 0; d < b.rank(); ++d) {
    std::string parts;
    bool only_addr = true;
    for (std::size_t i = 0; i < b.distribution_part_count(); ++i) {
      const auto& p = b.parts()[i];
      if (p.axis != static_cast<int>(d)) continue;
      if (!parts.empty()) parts += "×";
      parts += std::to_string(p.size);
      if (p.target < static_cast<int>(b.level_count()))
        parts += "_" + b.level_name(static_cast<std::size_t>(p.target));
      else if (p.target == b.lane_target())
        parts += "_W";
      else if (p.target == b.time_target())
        parts += "_Time";
      only_addr &= p.target == b.addr_target();
    }
    std::string extent = std::to_string(b.shape()[d]);
    if (b.padded_shape()[d] != b.shape()[d]) extent += "→" + std::to_string(b.padded_shape()[d]);
    axes += (d ? ", " : "") + extent + (only_addr && b.padded_shape()[d] == b.shape()[d] ? "" : ": " + parts);
  }
  const std::uint64_t pes = b.pe_count();
  const std::string& pe = b.level_name(b.level_count() - 1);
  return fmt::format("{}[{}] {} words/{} ({} B), {} of {} {}s, replicated ×{}", type_name, axes,
                     b.cosize(b.addr_target()), pe, b.footprint_bytes_per_unit(), b.pes_used(), pes, pe,
                     b.replicas());
}

std::string tensor_grid(const BoundLayout& b, std::uint64_t max_rows, std::uint64_t max_cols) {
  if (b.rank() != 2) return "";
  const auto& p = b.padded_shape();
  if (p[0] > max_rows || p[1] > max_cols) return "";
  std::vector<std::string> cells(p[0] * p[1]);
  std::size_t width = 1;
  Location loc;
  for (std::uint64_t i = 0; i < p[0]; ++i)
    for (std::uint64_t j = 0; j < p[1]; ++j) {
      std::uint64_t idx[2] = {i, j};
      b.locate_into(idx, loc);
      std::string c;
      if (b.has_time()) c += fmt::format("t{}/", loc.time);
      c += fmt::format("{}:{}", b.pe_id(loc.units), loc.addr);
      if (b.has_lanes()) c += fmt::format(".{}", loc.lane);
      if (i >= b.shape()[0] || j >= b.shape()[1]) c += "*";
      width = std::max(width, c.size());
      cells[i * p[1] + j] = c;
    }
  std::size_t row_w = std::to_string(p[0] - 1).size();
  std::string out = std::string(row_w, ' ');
  for (std::uint64_t j = 0; j < p[1]; ++j) out += fmt::format(" {:>{}}", j, width);
  out += "\n";
  for (std::uint64_t i = 0; i < p[0]; ++i) {
    out += fmt::format("{:>{}}", i, row_w);
    for (std::uint64_t j = 0; j < p[1]; ++j) out += fmt::format(" {:>{}}", cells[i * p[1] + j], width);
    out += "\n";
  }
  return out;
}

}  // namespace treesim::layout
