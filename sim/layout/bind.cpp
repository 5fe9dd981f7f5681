// Binding = validation (note §4.5): each check needs the previous ones to hold, so binding stops at
// the first error. The injectivity check enumerates each target's digit box once and keeps the table
// it fills as that target's inverse (note §4.4).
#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "sim/layout/bound_layout.h"

namespace treesim::layout {
namespace {

constexpr std::uint64_t kCap = std::uint64_t{1} << 62;
constexpr std::uint64_t kTableLimit = std::uint64_t{1} << 24;  // largest target range kept as a table
// Combinations tried when looking for a collision in a larger, irregular range: bounds the hash
// map to tens of MB and a fraction of a second.
constexpr std::uint64_t kSearchLimit = std::uint64_t{1} << 20;
constexpr std::uint64_t kAxisTableLimit = std::uint64_t{1} << 20;

std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) {
  return (b != 0 && a > kCap / b) ? kCap + 1 : a * b;
}
std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) {
  return a > kCap - std::min(b, kCap) ? kCap + 1 : a + b;
}

std::string plural(const std::string& name) { return name + "s"; }

std::string text_of(const TensorLayout& l, Span s) {
  if (l.source.empty() || s.begin + s.length > l.source.size()) return "";
  return l.source.substr(s.begin, s.length);
}

}  // namespace

BindResult bind_layout(const TensorLayout& l, const std::vector<std::uint64_t>& shape,
                       const machine::MachineConfig& machine, std::size_t element_bytes) {
  BindResult result;
  auto diag = [&](const std::string& code, const std::string& msg, Span span, const std::string& hint = "") {
    Diagnostic d;
    d.code = code;
    d.message = msg;
    d.hint = hint;
    d.source = l.source;
    if (!l.source.empty()) {
      d.column = span.begin + 1;
      d.length = span.length;
    }
    return d;
  };
  auto fail = [&](const std::string& code, const std::string& msg, Span span, const std::string& hint = "") {
    result.validation.errors.push_back(diag(code, msg, span, hint));
    return result;
  };
  auto warn = [&](const std::string& code, const std::string& msg, Span span) {
    result.validation.warnings.push_back(diag(code, msg, span));
  };

  BoundLayout b;
  b.layout_ = l;
  b.shape_ = shape;
  const std::size_t levels = machine.levels.size();
  for (const auto& lv : machine.levels) {
    b.level_names_.push_back(lv.name);
    b.fanouts_.push_back(lv.fanout);
  }
  b.pe_weight_.assign(levels, 1);
  for (std::size_t i = levels; i-- > 1;) b.pe_weight_[i - 1] = b.pe_weight_[i] * b.fanouts_[i];
  b.element_bytes_ = element_bytes == 0 ? 1 : element_bytes;
  b.words_per_address_ = std::max<std::uint64_t>(1, machine.pe.words_per_address);
  b.lm_addresses_ =
      machine.levels.empty() ? 0 : machine.lm_bytes() / (b.element_bytes_ * b.words_per_address_);

  // Rank and product rules (E030, E031, E040–E042).
  const std::size_t rank = shape.size();
  if (l.axes.size() != rank)
    return fail("E030",
                fmt::format("layout has {} axis tuple(s) but the tensor has rank {} (shape {})",
                            l.axes.size(), rank, shape_string(shape)),
                l.layout_span);
  b.padded_ = l.padded_shape();
  for (std::size_t d = 0; d < rank; ++d)
    if (b.padded_[d] > kCap)
      return fail("E021", fmt::format("axis {}: sub-axis sizes multiply to more than 2^62", d),
                  l.axis_spans.at(d));
  if (l.logical_shape) {
    const auto& ls = *l.logical_shape;
    if (ls.size() != rank)
      return fail("E031", fmt::format("pad prefix has rank {} but the tensor has rank {}", ls.size(), rank),
                  l.prefix_span);
    if (ls != shape)
      return fail("E042",
                  fmt::format("pad prefix declares logical shape {} but the tensor is {}", shape_string(ls),
                              shape_string(shape)),
                  l.prefix_span);
    for (std::size_t d = 0; d < rank; ++d)
      if (b.padded_[d] < shape[d])
        return fail("E041",
                    fmt::format("axis {} pads to {} but the logical size is {}", d, b.padded_[d], shape[d]),
                    l.axis_spans.at(d));
  } else {
    for (std::size_t d = 0; d < rank; ++d) {
      if (b.padded_[d] == shape[d]) continue;
      std::string factors;
      for (const auto& s : l.axes[d]) factors += (factors.empty() ? "" : "×") + std::to_string(s.size);
      std::string text = text_of(l, l.layout_span);
      return fail(
          "E040",
          fmt::format("axis {}: sub-axis sizes multiply to {} ({}) but tensor dim {} is {} (shape {})", d,
                      b.padded_[d], factors, d, shape[d], shape_string(shape)),
          l.axis_spans.at(d),
          b.padded_[d] > shape[d] && !text.empty()
              ? "If padding is intended write the logical shape first: " + shape_string(shape) + "/" + text
              : "");
    }
  }

  // Parts: distribution sub-axes in textual order, then broadcast items.
  auto level_target = [&](const std::string& name) -> int {
    auto i = machine.level_index(name);
    return i ? static_cast<int>(*i) : -1;
  };
  const int addr_t = static_cast<int>(levels), lane_t = addr_t + 1, time_t = addr_t + 2;
  for (std::size_t d = 0; d < rank; ++d) {
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
          p.target = addr_t;
          break;
        case TargetKind::Lane:
          p.target = lane_t;
          break;
        case TargetKind::Time:
          p.target = time_t;
          break;
        case TargetKind::Level:
          p.target = level_target(s.target.level);
          if (p.target < 0)
            return fail("E010", "unknown target suffix '_" + s.target.level + "' for machine " + machine.name,
                        s.span);
          break;
      }
      weight *= s.size;
      axis_parts.push_back(p);
    }
    std::reverse(axis_parts.begin(), axis_parts.end());
    b.parts_.insert(b.parts_.end(), axis_parts.begin(), axis_parts.end());
  }
  b.dist_count_ = b.parts_.size();
  for (std::size_t i = 0; i < l.broadcasts.size(); ++i) {
    const Broadcast& bc = l.broadcasts[i];
    int t = level_target(bc.level);
    if (t < 0) return fail("E010", "unknown level '" + bc.level + "' for machine " + machine.name, bc.span);
    if (bc.whole_level) {
      // E120: a bare item means "every unit of the level"; anything else on that level conflicts.
      for (const auto& p : b.parts_)
        if (p.target == t)
          return fail("E120",
                      fmt::format("B@[{}] means all {} {}, but {} is already split by {}", bc.level,
                                  b.fanouts_[t], plural(bc.level), bc.level, text_of(l, p.span)),
                      bc.span);
      for (std::size_t j = 0; j < l.broadcasts.size(); ++j) {
        if (j == i || l.broadcasts[j].level != bc.level) continue;
        if (l.broadcasts[j].whole_level)
          return fail("E121", fmt::format("B@[{}] is listed twice", bc.level),
                      l.broadcasts[std::max(i, j)].span);
        return fail("E120",
                    fmt::format("B@[{}] means all {} {}, but {} is also replicated by {}", bc.level,
                                b.fanouts_[t], plural(bc.level), bc.level, text_of(l, l.broadcasts[j].span)),
                    bc.span);
      }
    }
    BoundLayout::Part p;
    p.size = bc.whole_level ? b.fanouts_[t] : bc.size;
    p.stride = bc.whole_level ? 1 : bc.stride;
    p.target = t;
    p.span = bc.span;
    b.parts_.push_back(p);
  }

  // Targets and their extents.
  b.decoders_.resize(levels + 3);
  for (std::size_t i = 0; i < b.parts_.size(); ++i) b.decoders_[b.parts_[i].target].parts.push_back(i);
  for (auto& dec : b.decoders_) {
    std::uint64_t reach = 0;
    for (std::size_t i : dec.parts) reach = sat_add(reach, sat_mul(b.parts_[i].size - 1, b.parts_[i].stride));
    dec.cosize = sat_add(reach, 1);
  }
  for (std::size_t i = b.dist_count_; i < b.parts_.size(); ++i) b.replica_radix_.push_back(b.parts_[i].size);
  for (std::size_t lv = 0; lv < levels; ++lv) {
    if (!b.decoders_[lv].parts.empty()) continue;
    b.omitted_.push_back(lv);
    b.replica_radix_.push_back(b.fanouts_[lv]);
  }
  for (std::uint64_t r : b.replica_radix_) b.replicas_ = sat_mul(b.replicas_, r);

  // Fan-out (E050) and lanes (E051, E052).
  auto widest_part = [&](int t) {
    const auto& ps = b.decoders_[t].parts;
    std::size_t best = ps.front();
    for (std::size_t i : ps)
      if (sat_mul(b.parts_[i].size - 1, b.parts_[i].stride) >=
          sat_mul(b.parts_[best].size - 1, b.parts_[best].stride))
        best = i;
    return b.parts_[best].span;
  };
  for (std::size_t lv = 0; lv < levels; ++lv) {
    const auto& dec = b.decoders_[lv];
    if (dec.parts.empty() || dec.cosize <= b.fanouts_[lv]) continue;
    std::string parent = lv == 0 ? "the board has" : "a " + b.level_names_[lv - 1] + " has";
    return fail("E050",
                fmt::format("{} sub-axes reach index {} but {} only {} {}", b.level_names_[lv],
                            dec.cosize - 1, parent, b.fanouts_[lv], plural(b.level_names_[lv])),
                widest_part(static_cast<int>(lv)));
  }
  if (!b.decoders_[lane_t].parts.empty()) {
    if (b.words_per_address_ == 1)
      return fail(
          "E052",
          "layout uses _W lanes but this machine holds 1 element per LM address (pe.words_per_address = 1)",
          b.parts_[b.decoders_[lane_t].parts.front()].span);
    if (b.decoders_[lane_t].cosize > b.words_per_address_)
      return fail("E051",
                  fmt::format("W sub-axes reach lane {} but an LM address holds {} elements",
                              b.decoders_[lane_t].cosize - 1, b.words_per_address_),
                  widest_part(lane_t));
  }

  // Capacity first when the address range is too large to enumerate (it cannot fit anyway).
  const std::string pe_name = levels ? b.level_names_.back() : "PE";
  auto capacity_error = [&]() {
    return fail(
        "E070",
        fmt::format("layout needs {} LM words per {}, LM has {} ({} bytes / ({} byte(s) × {} element(s) "
                    "per word))",
                    b.decoders_[addr_t].cosize, pe_name, b.lm_addresses_, machine.lm_bytes(),
                    b.element_bytes_, b.words_per_address_),
        l.layout_span);
  };
  if (b.decoders_[addr_t].cosize > kTableLimit && b.decoders_[addr_t].cosize > b.lm_addresses_)
    return capacity_error();

  // Injectivity per target (E060–E063), building each target's decoder on the way.
  auto describe = [&](int t, std::uint64_t combo) {
    // The witness: this target's digits from `combo`, every other digit 0.
    const auto& ps = b.decoders_[t].parts;
    std::vector<std::uint64_t> x(rank, 0);
    std::uint64_t replica = 0, value = 0, rep_weight = 1;
    std::vector<std::uint64_t> digit(ps.size());
    for (std::size_t k = ps.size(); k-- > 0;) {
      digit[k] = combo % b.parts_[ps[k]].size;
      combo /= b.parts_[ps[k]].size;
    }
    // Broadcast digits count row-major over the broadcast parts; find each one's weight.
    for (std::size_t k = 0; k < ps.size(); ++k) {
      const auto& p = b.parts_[ps[k]];
      value += digit[k] * p.stride;
      if (p.axis >= 0) {
        x[p.axis] += digit[k] * p.weight;
      } else {
        rep_weight = 1;
        for (std::size_t j = ps[k] - b.dist_count_ + 1; j < b.replica_radix_.size(); ++j)
          rep_weight *= b.replica_radix_[j];
        replica += digit[k] * rep_weight;
      }
    }
    struct W {
      std::string text;
      std::uint64_t value;
      std::vector<std::uint64_t> digits;
    };
    return W{shape_string(x) + (replica ? " replica " + std::to_string(replica) : ""), value, digit};
  };
  auto collision = [&](int t, std::uint64_t first, std::uint64_t second) {
    auto a = describe(t, first), c = describe(t, second);
    // Underline the last-written part whose digit differs: its stride is the one that overlaps.
    const auto& ps = b.decoders_[t].parts;
    Span span = b.parts_[ps.back()].span;
    for (std::size_t k = 0; k < ps.size(); ++k)
      if (a.digits[k] != c.digits[k]) span = b.parts_[ps[k]].span;
    bool replicas =
        a.text.find("replica") != std::string::npos || c.text.find("replica") != std::string::npos;
    std::string who =
        (replicas ? "element " : "elements ") + a.text + " and " + (replicas ? "element " : "") + c.text;
    if (t == addr_t)
      return fail("E060", fmt::format("{} both map to LM address {} of the same {}", who, a.value, pe_name),
                  span);
    if (t == lane_t)
      return fail("E062", fmt::format("{} both map to lane {} of the same LM address", who, a.value), span);
    if (t == time_t)
      return fail("E063",
                  fmt::format("{} both map to time step {} at the same unit and address", who, a.value),
                  span);
    std::string strides;
    for (std::size_t k = 0; k < ps.size(); ++k)
      strides += (k == 0 ? "" : k + 1 == ps.size() ? " and " : ", ") + std::to_string(b.parts_[ps[k]].stride);
    const std::string& name = b.level_names_[t];
    return fail("E061",
                fmt::format("{} both map to {} {}, address 0 ({} strides {} overlap)", who, name, a.value,
                            name, strides),
                span);
  };
  std::vector<int> order{addr_t};
  for (std::size_t lv = 0; lv < levels; ++lv) order.push_back(static_cast<int>(lv));
  order.push_back(lane_t);
  order.push_back(time_t);
  for (int t : order) {
    auto& dec = b.decoders_[t];
    if (dec.parts.empty()) continue;
    // Nested strides (sorted, each larger than the reach of the smaller ones) are injective and
    // decode greedily; no table needed.
    std::vector<std::size_t> by_stride;
    for (std::size_t i : dec.parts)
      if (b.parts_[i].size > 1) by_stride.push_back(i);
    std::stable_sort(by_stride.begin(), by_stride.end(),
                     [&](std::size_t x, std::size_t y) { return b.parts_[x].stride < b.parts_[y].stride; });
    bool nested = true;
    std::uint64_t reach = 0;
    for (std::size_t i : by_stride) {
      if (b.parts_[i].stride <= reach) nested = false;
      reach = sat_add(reach, sat_mul(b.parts_[i].size - 1, b.parts_[i].stride));
    }
    // Steps the parts' digits to the next combination (row-major) and the target value with them;
    // false when they wrap around.
    auto step = [&](std::vector<std::uint64_t>& digit, std::uint64_t& value) {
      for (std::size_t k = dec.parts.size(); k-- > 0;) {
        const auto& p = b.parts_[dec.parts[k]];
        if (++digit[k] < p.size) {
          value += p.stride;
          return true;
        }
        digit[k] = 0;
        value -= (p.size - 1) * p.stride;
      }
      return false;
    };
    if (dec.cosize > kTableLimit) {
      if (nested) {
        dec.greedy_order.assign(by_stride.rbegin(), by_stride.rend());
        continue;
      }
      // Irregular and large. Two parts with one stride collide at once (digit 1 in either); the
      // row-major search below might not reach that pair within its bound.
      std::vector<std::uint64_t> after(dec.parts.size() + 1, 1);  // combo id of digit 1 at k
      for (std::size_t k = dec.parts.size(); k-- > 0;)
        after[k] = sat_mul(after[k + 1], b.parts_[dec.parts[k]].size);
      for (std::size_t x = 0; x < dec.parts.size(); ++x)
        for (std::size_t y = x + 1; y < dec.parts.size(); ++y) {
          const auto &px = b.parts_[dec.parts[x]], &py = b.parts_[dec.parts[y]];
          if (px.size > 1 && py.size > 1 && px.stride == py.stride && after[x + 1] <= kCap)
            return collision(t, after[y + 1], after[x + 1]);
        }
      // Otherwise look for a collision with a hash map, bounded.
      std::unordered_map<std::uint64_t, std::uint64_t> seen;
      const std::uint64_t combos = after[0];
      std::vector<std::uint64_t> digit(dec.parts.size(), 0);
      std::uint64_t value = 0;
      for (std::uint64_t id = 0; id < combos && id < kSearchLimit; ++id) {
        auto [it, fresh] = seen.emplace(value, id);
        if (!fresh) return collision(t, it->second, id);
        step(digit, value);
      }
      return fail("E064",
                  fmt::format("target range {} too large and irregular to check and invert", dec.cosize),
                  b.parts_[dec.parts.back()].span);
    }
    dec.table.assign(dec.cosize, BoundLayout::kNone);
    std::vector<std::uint64_t> digit(dec.parts.size(), 0);
    std::uint64_t value = 0;
    for (std::uint32_t id = 0;; ++id) {
      if (dec.table[value] != BoundLayout::kNone) return collision(t, dec.table[value], id);
      dec.table[value] = id;
      if (!step(digit, value)) break;  // odometer wrapped: all combos seen
    }
  }

  if (b.decoders_[addr_t].cosize > b.lm_addresses_) return capacity_error();

  // Warnings (W01–W05).
  for (std::size_t lv = 0; lv < levels; ++lv) {
    const auto& dec = b.decoders_[lv];
    if (dec.parts.empty()) continue;
    std::uint64_t used = 1;
    for (std::size_t i : dec.parts) used *= b.parts_[i].size;
    std::string parent = lv == 0 ? "on the board" : "under each " + b.level_names_[lv - 1];
    if (used < b.fanouts_[lv])
      warn("W01",
           fmt::format("{}: the layout uses {} of the {} {} {}; the others hold nothing", b.level_names_[lv],
                       used, b.fanouts_[lv], plural(b.level_names_[lv]), parent),
           b.parts_[dec.parts.front()].span);
    if (b.fanouts_[lv] % used != 0)
      warn("W02",
           fmt::format("{}: sizes multiply to {}, which does not divide the fan-out {}", b.level_names_[lv],
                       used, b.fanouts_[lv]),
           b.parts_[dec.parts.front()].span);
  }
  std::uint64_t logical = b.logical_elements(), padded = b.padded_elements();
  if (padded > 0 && (padded - logical) * 4 > padded)
    warn("W03",
         fmt::format("padding wastes {:.1f}% of the slots ({} of {})", 100.0 * (padded - logical) / padded,
                     padded - logical, padded),
         l.logical_shape ? l.prefix_span : l.layout_span);
  {
    const auto& dec = b.decoders_[addr_t];
    std::uint64_t filled = 1;
    for (std::size_t i : dec.parts) filled *= b.parts_[i].size;
    if (dec.cosize > filled)
      warn("W04",
           fmt::format("LM addresses have holes: the layout spans {} addresses per {} but fills {}",
                       dec.cosize, pe_name, filled),
           dec.parts.empty() ? l.layout_span : b.parts_[dec.parts.back()].span);
  }
  for (const auto& bc : l.broadcasts)
    if (bc.whole_level)
      warn("W05",
           fmt::format("B@[{}] is redundant: a level no sub-axis names is copied to all its units anyway",
                       bc.level),
           bc.span);

  // Per-axis contribution tables for the forward map's fast path.
  b.axis_table_.resize(rank);
  const std::size_t targets = b.target_count();
  for (std::size_t d = 0; d < rank; ++d) {
    if (b.padded_[d] > kAxisTableLimit / targets) continue;
    auto& table = b.axis_table_[d];
    table.assign(b.padded_[d] * targets, 0);
    for (std::size_t i = 0; i < b.dist_count_; ++i) {
      const auto& p = b.parts_[i];
      if (p.axis != static_cast<int>(d)) continue;
      for (std::uint64_t x = 0; x < b.padded_[d]; ++x)
        table[x * targets + p.target] += (x / p.weight) % p.size * p.stride;
    }
  }
  result.layout = std::move(b);
  return result;
}

BoundLayout bind_or_throw(const TensorLayout& layout, const std::vector<std::uint64_t>& shape,
                          const machine::MachineConfig& machine, std::size_t element_bytes) {
  BindResult r = bind_layout(layout, shape, machine, element_bytes);
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
