// Binding's per-target steps (note §4.4, §4.5): the injectivity check enumerates each target's digit
// box once and keeps the table it fills as that target's inverse; a collision becomes a witness pair
// of elements. Then the LM capacity, and the per-axis tables of the forward map's fast path.
#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "sim/layout/bind_steps.h"

namespace treesim::layout {
namespace {

// Steps the parts' digits to the next combination (row-major) and the target value with them;
// false when they wrap around.
bool step(const std::vector<BoundLayout::Part>& all, const std::vector<std::size_t>& parts,
          std::vector<std::uint64_t>& digit, std::uint64_t& value) {
  for (std::size_t k = parts.size(); k-- > 0;) {
    const auto& p = all[parts[k]];
    if (++digit[k] < p.size) {
      value += p.stride;
      return true;
    }
    digit[k] = 0;
    value -= (p.size - 1) * p.stride;
  }
  return false;
}

}  // namespace

// E070. Checked before the injectivity check when the address range is too large to enumerate (it
// cannot fit anyway), otherwise after it.
bool Binder::check_capacity(bool before_enumerating) {
  const std::uint64_t need = b_.decoders_[addr_t_].cosize;
  if (need <= b_.lm_addresses_ || (before_enumerating && need <= kTableLimit)) return true;
  return fail(
      "E070",
      fmt::format("layout needs {} LM words per {}, LM has {} ({} bytes / ({} byte(s) × {} element(s) "
                  "per word))",
                  need, pe_name(), b_.lm_addresses_, machine_.lm_bytes(), b_.element_bytes_,
                  b_.words_per_address_),
      l_.layout_span);
}

Binder::Witness Binder::witness(int t, std::uint64_t combo) const {
  const auto& ps = b_.decoders_[t].parts;
  std::vector<std::uint64_t> x(rank_, 0);
  std::uint64_t replica = 0, value = 0, rep_weight = 1;
  std::vector<std::uint64_t> digit(ps.size());
  for (std::size_t k = ps.size(); k-- > 0;) {
    digit[k] = combo % b_.parts_[ps[k]].size;
    combo /= b_.parts_[ps[k]].size;
  }
  // Broadcast digits count row-major over the broadcast parts; find each one's weight.
  for (std::size_t k = 0; k < ps.size(); ++k) {
    const auto& p = b_.parts_[ps[k]];
    value += digit[k] * p.stride;
    if (p.axis >= 0) {
      x[p.axis] += digit[k] * p.weight;
    } else {
      rep_weight = 1;
      for (std::size_t j = ps[k] - b_.dist_count_ + 1; j < b_.replica_radix_.size(); ++j)
        rep_weight *= b_.replica_radix_[j];
      replica += digit[k] * rep_weight;
    }
  }
  return Witness{shape_string(x) + (replica ? " replica " + std::to_string(replica) : ""), value, digit};
}

// E060–E063: two combinations of target t's digits land on the same value.
bool Binder::collision(int t, std::uint64_t first, std::uint64_t second) {
  auto a = witness(t, first), c = witness(t, second);
  // Underline the last-written part whose digit differs: its stride is the one that overlaps.
  const auto& ps = b_.decoders_[t].parts;
  Span span = b_.parts_[ps.back()].span;
  for (std::size_t k = 0; k < ps.size(); ++k)
    if (a.digits[k] != c.digits[k]) span = b_.parts_[ps[k]].span;
  bool replicas = a.text.find("replica") != std::string::npos || c.text.find("replica") != std::string::npos;
  std::string who =
      (replicas ? "element " : "elements ") + a.text + " and " + (replicas ? "element " : "") + c.text;
  if (t == addr_t_)
    return fail("E060", fmt::format("{} both map to LM address {} of the same {}", who, a.value, pe_name()),
                span);
  if (t == lane_t_)
    return fail("E062", fmt::format("{} both map to lane {} of the same LM address", who, a.value), span);
  if (t == time_t_)
    return fail("E063", fmt::format("{} both map to time step {} at the same unit and address", who, a.value),
                span);
  std::string strides;
  for (std::size_t k = 0; k < ps.size(); ++k)
    strides += (k == 0 ? "" : k + 1 == ps.size() ? " and " : ", ") + std::to_string(b_.parts_[ps[k]].stride);
  const std::string& name = b_.level_names_[t];
  return fail("E061",
              fmt::format("{} both map to {} {}, address 0 ({} strides {} overlap)", who, name, a.value, name,
                          strides),
              span);
}

// Injectivity per target (E060–E064), building each target's decoder on the way: the address first,
// then the levels root first, the lanes, the time steps.
bool Binder::build_decoders() {
  std::vector<int> order{addr_t_};
  for (std::size_t lv = 0; lv < levels_; ++lv) order.push_back(static_cast<int>(lv));
  order.push_back(lane_t_);
  order.push_back(time_t_);
  for (int t : order)
    if (!b_.decoders_[t].parts.empty() && !build_decoder(t)) return false;
  return true;
}

bool Binder::build_decoder(int t) {
  auto& dec = b_.decoders_[t];
  // Nested strides (sorted, each larger than the reach of the smaller ones) are injective and
  // decode greedily; no table needed.
  std::vector<std::size_t> by_stride;
  for (std::size_t i : dec.parts)
    if (b_.parts_[i].size > 1) by_stride.push_back(i);
  std::stable_sort(by_stride.begin(), by_stride.end(),
                   [&](std::size_t x, std::size_t y) { return b_.parts_[x].stride < b_.parts_[y].stride; });
  bool nested = true;
  std::uint64_t reach = 0;
  for (std::size_t i : by_stride) {
    if (b_.parts_[i].stride <= reach) nested = false;
    reach = sat_add(reach, sat_mul(b_.parts_[i].size - 1, b_.parts_[i].stride));
  }
  // Nested decoders skip the table at any size: building it visited every slot of the target (a
  // million for a 1024×1024 tensor's addresses) each time the planner bound a candidate layout.
  if (nested) {
    dec.greedy_order.assign(by_stride.rbegin(), by_stride.rend());
    return true;
  }
  if (dec.cosize > kTableLimit) {
    // Irregular and large. Two parts with one stride collide at once (digit 1 in either); the
    // row-major search below might not reach that pair within its bound.
    std::vector<std::uint64_t> after(dec.parts.size() + 1, 1);  // combo id of digit 1 at k
    for (std::size_t k = dec.parts.size(); k-- > 0;)
      after[k] = sat_mul(after[k + 1], b_.parts_[dec.parts[k]].size);
    for (std::size_t x = 0; x < dec.parts.size(); ++x)
      for (std::size_t y = x + 1; y < dec.parts.size(); ++y) {
        const auto &px = b_.parts_[dec.parts[x]], &py = b_.parts_[dec.parts[y]];
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
      step(b_.parts_, dec.parts, digit, value);
    }
    return fail("E064",
                fmt::format("target range {} too large and irregular to check and invert", dec.cosize),
                b_.parts_[dec.parts.back()].span);
  }
  std::vector<std::uint32_t> table(dec.cosize, BoundLayout::kNone);
  std::vector<std::uint64_t> digit(dec.parts.size(), 0);
  std::uint64_t value = 0;
  for (std::uint32_t id = 0;; ++id) {
    if (table[value] != BoundLayout::kNone) return collision(t, table[value], id);
    table[value] = id;
    if (!step(b_.parts_, dec.parts, digit, value)) break;  // odometer wrapped: all combos seen
  }
  dec.table = std::make_shared<const std::vector<std::uint32_t>>(std::move(table));
  return true;
}

}  // namespace treesim::layout
