// Binding = validation (note §4.5): each check needs the previous ones to hold, so binding stops at
// the first error. This file has the driver and the checks on the layout's shape, parts and fan-outs;
// bind_targets.cpp builds the per-target decoders (the injectivity check, note §4.4).
#include <algorithm>

#include <fmt/format.h>

#include "sim/layout/bind_steps.h"
#include "sim/layout/bound_layout.h"

namespace treesim::layout {
namespace {

std::string plural(const std::string& name) { return name + "s"; }

std::string text_of(const TensorLayout& l, Span s) {
  if (l.source.empty() || s.begin + s.length > l.source.size()) return "";
  return l.source.substr(s.begin, s.length);
}

}  // namespace

Binder::Binder(const TensorLayout& l, const std::vector<std::uint64_t>& shape,
               const machine::MachineConfig& machine, std::size_t element_bytes, LmCapacity capacity)
    : l_(l),
      shape_(shape),
      machine_(machine),
      levels_(machine.levels.size()),
      rank_(shape.size()),
      addr_t_(static_cast<int>(levels_)),
      lane_t_(addr_t_ + 1),
      time_t_(addr_t_ + 2) {
  b_.layout_ = l;
  b_.shape_ = shape;
  for (const auto& lv : machine.levels) {
    b_.level_names_.push_back(lv.name);
    b_.fanouts_.push_back(lv.fanout);
  }
  b_.pe_weight_.assign(levels_, 1);
  for (std::size_t i = levels_; i-- > 1;) b_.pe_weight_[i - 1] = b_.pe_weight_[i] * b_.fanouts_[i];
  b_.element_bytes_ = element_bytes == 0 ? 1 : element_bytes;
  b_.words_per_address_ = std::max<std::uint64_t>(1, machine.pe.words_per_address);
  const std::uint64_t lm = capacity == LmCapacity::kUnchecked ? kCap : machine.lm_bytes();
  b_.lm_addresses_ = machine.levels.empty() ? 0 : lm / (b_.element_bytes_ * b_.words_per_address_);
}

BindResult Binder::run() {
  if (check_shape() && resolve_parts()) {
    size_targets();
    if (check_fanouts() && check_capacity(true) && build_decoders() && check_capacity(false)) {
      add_warnings();
      b_.axis_tables_ = std::make_shared<BoundLayout::AxisTables>();  // built on first use
      result_.layout = std::move(b_);
    }
  }
  return std::move(result_);
}

Diagnostic Binder::diag(const std::string& code, const std::string& msg, Span span,
                        const std::string& hint) const {
  Diagnostic d;
  d.code = code;
  d.message = msg;
  d.hint = hint;
  d.source = l_.source;
  if (!l_.source.empty()) {
    d.column = span.begin + 1;
    d.length = span.length;
  }
  return d;
}

bool Binder::fail(const std::string& code, const std::string& msg, Span span, const std::string& hint) {
  result_.validation.errors.push_back(diag(code, msg, span, hint));
  return false;
}

void Binder::warn(const std::string& code, const std::string& msg, Span span) {
  result_.validation.warnings.push_back(diag(code, msg, span));
}

std::string Binder::pe_name() const { return levels_ ? b_.level_names_.back() : "PE"; }

// Rank and product rules (E030, E021, E031, E040–E042): the tuples must describe this tensor before
// any sub-axis can be placed, and the padded sizes must stay below the saturation cap.
bool Binder::check_shape() {
  const TensorLayout& l = l_;
  const auto& shape = shape_;
  if (l.axes.size() != rank_)
    return fail("E030",
                fmt::format("layout has {} axis tuple(s) but the tensor has rank {} (shape {})",
                            l.axes.size(), rank_, shape_string(shape)),
                l.layout_span);
  b_.padded_ = l.padded_shape();
  for (std::size_t d = 0; d < rank_; ++d)
    if (b_.padded_[d] > kCap)
      return fail("E021", fmt::format("axis {}: sub-axis sizes multiply to more than 2^62", d),
                  l.axis_spans.at(d));
  if (l.logical_shape) {
    const auto& ls = *l.logical_shape;
    if (ls.size() != rank_)
      return fail("E031", fmt::format("pad prefix has rank {} but the tensor has rank {}", ls.size(), rank_),
                  l.prefix_span);
    if (ls != shape)
      return fail("E042",
                  fmt::format("pad prefix declares logical shape {} but the tensor is {}", shape_string(ls),
                              shape_string(shape)),
                  l.prefix_span);
    for (std::size_t d = 0; d < rank_; ++d)
      if (b_.padded_[d] < shape[d])
        return fail("E041",
                    fmt::format("axis {} pads to {} but the logical size is {}", d, b_.padded_[d], shape[d]),
                    l.axis_spans.at(d));
  } else {
    for (std::size_t d = 0; d < rank_; ++d) {
      if (b_.padded_[d] == shape[d]) continue;
      std::string factors;
      for (const auto& s : l.axes[d]) factors += (factors.empty() ? "" : "×") + std::to_string(s.size);
      std::string text = text_of(l, l.layout_span);
      return fail(
          "E040",
          fmt::format("axis {}: sub-axis sizes multiply to {} ({}) but tensor dim {} is {} (shape {})", d,
                      b_.padded_[d], factors, d, shape[d], shape_string(shape)),
          l.axis_spans.at(d),
          b_.padded_[d] > shape[d] && !text.empty()
              ? "If padding is intended write the logical shape first: " + shape_string(shape) + "/" + text
              : "");
    }
  }
  return true;
}

// Parts: distribution sub-axes in textual order (each with its digit weight inside its axis), then
// broadcast items. Names a level the machine lacks (E010), or a whole-level broadcast that conflicts
// with another split or replication of that level (E120, E121).
bool Binder::resolve_parts() {
  const TensorLayout& l = l_;
  auto level_target = [&](const std::string& name) -> int {
    auto i = machine_.level_index(name);
    return i ? static_cast<int>(*i) : -1;
  };
  for (std::size_t d = 0; d < rank_; ++d) {
    std::uint64_t weight = 1;
    std::vector<BoundLayout::Part> axis_parts;
    for (std::size_t k = l.axes[d].size(); k-- > 0;) {
      const SubAxis& s = l.axes[d][k];
      BoundLayout::Part p;
      p.size = s.size;
      p.stride = s.stride;
      p.weight = weight;
      p.axis = static_cast<int>(d);
      p.span = s.span;
      switch (s.target.kind) {
        case TargetKind::Addr:
          p.target = addr_t_;
          break;
        case TargetKind::Lane:
          p.target = lane_t_;
          break;
        case TargetKind::Time:
          p.target = time_t_;
          break;
        case TargetKind::Level:
          p.target = level_target(s.target.level);
          if (p.target < 0)
            return fail("E010",
                        "unknown target suffix '_" + s.target.level + "' for machine " + machine_.name,
                        s.span);
          break;
      }
      weight *= s.size;
      axis_parts.push_back(p);
    }
    std::reverse(axis_parts.begin(), axis_parts.end());
    b_.parts_.insert(b_.parts_.end(), axis_parts.begin(), axis_parts.end());
  }
  b_.dist_count_ = b_.parts_.size();
  for (std::size_t i = 0; i < l.broadcasts.size(); ++i) {
    const Broadcast& bc = l.broadcasts[i];
    int t = level_target(bc.level);
    if (t < 0) return fail("E010", "unknown level '" + bc.level + "' for machine " + machine_.name, bc.span);
    if (bc.whole_level) {
      // E120: a bare item means "every unit of the level"; anything else on that level conflicts.
      for (const auto& p : b_.parts_)
        if (p.target == t)
          return fail("E120",
                      fmt::format("B@[{}] means all {} {}, but {} is already split by {}", bc.level,
                                  b_.fanouts_[t], plural(bc.level), bc.level, text_of(l, p.span)),
                      bc.span);
      for (std::size_t j = 0; j < l.broadcasts.size(); ++j) {
        if (j == i || l.broadcasts[j].level != bc.level) continue;
        if (l.broadcasts[j].whole_level)
          return fail("E121", fmt::format("B@[{}] is listed twice", bc.level),
                      l.broadcasts[std::max(i, j)].span);
        return fail("E120",
                    fmt::format("B@[{}] means all {} {}, but {} is also replicated by {}", bc.level,
                                b_.fanouts_[t], plural(bc.level), bc.level, text_of(l, l.broadcasts[j].span)),
                    bc.span);
      }
    }
    BoundLayout::Part p;
    p.size = bc.whole_level ? b_.fanouts_[t] : bc.size;
    p.stride = bc.whole_level ? 1 : bc.stride;
    p.target = t;
    p.span = bc.span;
    b_.parts_.push_back(p);
  }
  return true;
}

// Targets and their extents (cosize, saturating), and the replicas: broadcast parts first, then
// every level no sub-axis names (note §4.3.7). The fan-out and capacity checks read these.
void Binder::size_targets() {
  b_.decoders_.resize(levels_ + 3);
  for (std::size_t i = 0; i < b_.parts_.size(); ++i) b_.decoders_[b_.parts_[i].target].parts.push_back(i);
  for (auto& dec : b_.decoders_) {
    std::uint64_t reach = 0;
    for (std::size_t i : dec.parts)
      reach = sat_add(reach, sat_mul(b_.parts_[i].size - 1, b_.parts_[i].stride));
    dec.cosize = sat_add(reach, 1);
  }
  for (std::size_t i = b_.dist_count_; i < b_.parts_.size(); ++i)
    b_.replica_radix_.push_back(b_.parts_[i].size);
  for (std::size_t lv = 0; lv < levels_; ++lv) {
    if (!b_.decoders_[lv].parts.empty()) continue;
    b_.omitted_.push_back(lv);
    b_.replica_radix_.push_back(b_.fanouts_[lv]);
  }
  for (std::uint64_t r : b_.replica_radix_) b_.replicas_ = sat_mul(b_.replicas_, r);
}

// Fan-out (E050) and lanes (E051, E052): every level target must stay inside its parent's units and
// the lane target inside one LM address; underlines the part that reaches furthest.
bool Binder::check_fanouts() {
  auto widest_part = [&](int t) {
    const auto& ps = b_.decoders_[t].parts;
    std::size_t best = ps.front();
    for (std::size_t i : ps)
      if (sat_mul(b_.parts_[i].size - 1, b_.parts_[i].stride) >=
          sat_mul(b_.parts_[best].size - 1, b_.parts_[best].stride))
        best = i;
    return b_.parts_[best].span;
  };
  for (std::size_t lv = 0; lv < levels_; ++lv) {
    const auto& dec = b_.decoders_[lv];
    if (dec.parts.empty() || dec.cosize <= b_.fanouts_[lv]) continue;
    std::string parent = lv == 0 ? "the board has" : "a " + b_.level_names_[lv - 1] + " has";
    return fail("E050",
                fmt::format("{} sub-axes reach index {} but {} only {} {}", b_.level_names_[lv],
                            dec.cosize - 1, parent, b_.fanouts_[lv], plural(b_.level_names_[lv])),
                widest_part(static_cast<int>(lv)));
  }
  if (!b_.decoders_[lane_t_].parts.empty()) {
    if (b_.words_per_address_ == 1)
      return fail(
          "E052",
          "layout uses _W lanes but this machine holds 1 element per LM address (pe.words_per_address = 1)",
          b_.parts_[b_.decoders_[lane_t_].parts.front()].span);
    if (b_.decoders_[lane_t_].cosize > b_.words_per_address_)
      return fail("E051",
                  fmt::format("W sub-axes reach lane {} but an LM address holds {} elements",
                              b_.decoders_[lane_t_].cosize - 1, b_.words_per_address_),
                  widest_part(lane_t_));
  }
  return true;
}

// Warnings (W01–W05): the layout is valid but probably not what was meant (idle units, a size that
// does not divide a fan-out, heavy padding, address holes, a redundant broadcast).
void Binder::add_warnings() {
  const TensorLayout& l = l_;
  for (std::size_t lv = 0; lv < levels_; ++lv) {
    const auto& dec = b_.decoders_[lv];
    if (dec.parts.empty()) continue;
    std::uint64_t used = 1;
    for (std::size_t i : dec.parts) used *= b_.parts_[i].size;
    std::string parent = lv == 0 ? "on the board" : "under each " + b_.level_names_[lv - 1];
    if (used < b_.fanouts_[lv])
      warn("W01",
           fmt::format("{}: the layout uses {} of the {} {} {}; the others hold nothing", b_.level_names_[lv],
                       used, b_.fanouts_[lv], plural(b_.level_names_[lv]), parent),
           b_.parts_[dec.parts.front()].span);
    if (b_.fanouts_[lv] % used != 0)
      warn("W02",
           fmt::format("{}: sizes multiply to {}, which does not divide the fan-out {}", b_.level_names_[lv],
                       used, b_.fanouts_[lv]),
           b_.parts_[dec.parts.front()].span);
  }
  std::uint64_t logical = b_.logical_elements(), padded = b_.padded_elements();
  if (padded > 0 && (padded - logical) * 4 > padded)
    warn("W03",
         fmt::format("padding wastes {:.1f}% of the slots ({} of {})", 100.0 * (padded - logical) / padded,
                     padded - logical, padded),
         l.logical_shape ? l.prefix_span : l.layout_span);
  {
    const auto& dec = b_.decoders_[addr_t_];
    std::uint64_t filled = 1;
    for (std::size_t i : dec.parts) filled *= b_.parts_[i].size;
    if (dec.cosize > filled)
      warn("W04",
           fmt::format("LM addresses have holes: the layout spans {} addresses per {} but fills {}",
                       dec.cosize, pe_name(), filled),
           dec.parts.empty() ? l.layout_span : b_.parts_[dec.parts.back()].span);
  }
  for (const auto& bc : l.broadcasts)
    if (bc.whole_level)
      warn("W05",
           fmt::format("B@[{}] is redundant: a level no sub-axis names is copied to all its units anyway",
                       bc.level),
           bc.span);
}

BindResult bind_layout(const TensorLayout& l, const std::vector<std::uint64_t>& shape,
                       const machine::MachineConfig& machine, std::size_t element_bytes,
                       LmCapacity capacity) {
  return Binder(l, shape, machine, element_bytes, capacity).run();
}

BoundLayout bind_or_throw(const TensorLayout& layout, const std::vector<std::uint64_t>& shape,
                          const machine::MachineConfig& machine, std::size_t element_bytes,
                          LmCapacity capacity) {
  BindResult r = bind_layout(layout, shape, machine, element_bytes, capacity);
  if (!r) throw LayoutError(r.validation.errors.front());
  return std::move(*r.layout);
}

void require_resident(const BoundLayout& layout) {
  if (!layout.has_time()) return;
  const TensorLayout& l = layout.layout();
  Diagnostic d;
  d.code = "E140";
  d.message = "layout has _Time sub-axes; use a streaming (time-sliced) load";
  d.source = l.source;
  const auto& part = layout.parts()[layout.target_parts(layout.time_target()).front()];
  if (!l.source.empty()) {
    d.column = part.span.begin + 1;
    d.length = part.span.length;
  }
  throw LayoutError(d);
}

}  // namespace treesim::layout
