// The forward map and its exact inverse (note §4.3, §4.4).
#include <fmt/format.h>

#include "sim/layout/bound_layout.h"

namespace treesim::layout {
namespace {

[[noreturn]] void query_error(const BoundLayout& b, const std::string& code, const std::string& message) {
  Diagnostic d;
  d.code = code;
  d.message = message;
  d.source = b.layout().source;
  throw LayoutError(d);
}

}  // namespace

bool BoundLayout::Decoder::decode(std::uint64_t value, const std::vector<Part>& all,
                                  std::uint64_t* digits) const {
  if (value >= cosize) return false;
  if (table && !table->empty()) {
    std::uint32_t id = (*table)[value];
    if (id == kNone) return false;
    for (std::size_t k = parts.size(); k-- > 0;) {
      digits[parts[k]] = id % all[parts[k]].size;
      id /= static_cast<std::uint32_t>(all[parts[k]].size);
    }
    return true;
  }
  for (std::size_t i : parts) digits[i] = 0;
  for (std::size_t i : greedy_order) {
    std::uint64_t c = value / all[i].stride;
    if (c >= all[i].size) return false;
    digits[i] = c;
    value -= c * all[i].stride;
  }
  return value == 0;
}

std::uint64_t BoundLayout::logical_elements() const {
  std::uint64_t n = 1;
  for (auto s : shape_) n *= s;
  return n;
}

std::uint64_t BoundLayout::padded_elements() const {
  std::uint64_t n = 1;
  for (auto s : padded_) n *= s;
  return n;
}

std::uint64_t BoundLayout::footprint_bytes_per_unit() const {
  return cosize(addr_target()) * words_per_address_ * element_bytes_;
}

std::uint64_t BoundLayout::pe_count() const {
  std::uint64_t n = 1;
  for (std::uint64_t f : fanouts_) n *= f;
  return n;
}

std::uint64_t BoundLayout::pes_used() const {
  std::uint64_t n = 1;
  for (std::size_t lv = 0; lv < fanouts_.size(); ++lv) {
    if (decoders_[lv].parts.empty()) {
      n *= fanouts_[lv];
      continue;
    }
    for (std::size_t i : decoders_[lv].parts) n *= parts_[i].size;  // injective: image size = Π sizes
  }
  return n;
}

std::uint64_t BoundLayout::pe_id(const std::vector<std::uint64_t>& units) const {
  std::uint64_t id = 0;
  for (std::size_t lv = 0; lv < units.size() && lv < fanouts_.size(); ++lv) id += units[lv] * pe_weight_[lv];
  return id;
}

const std::vector<std::vector<std::uint64_t>>* BoundLayout::axis_tables() const {
  if (!axis_tables_) return nullptr;
  std::call_once(axis_tables_->built, [this] {
    const std::size_t targets = target_count();
    std::vector<std::vector<std::uint64_t>>& tables = axis_tables_->per_axis;
    tables.resize(shape_.size());
    for (std::size_t d = 0; d < shape_.size(); ++d) {
      if (padded_[d] > kAxisTableLimit / targets) continue;
      std::vector<std::uint64_t>& table = tables[d];
      table.assign(padded_[d] * targets, 0);
      for (std::size_t i = 0; i < dist_count_; ++i) {
        const Part& p = parts_[i];
        if (p.axis != static_cast<int>(d)) continue;
        // (x / weight) % size · stride, counted rather than divided.
        std::uint64_t value = 0, left = p.weight, digit = 0;
        for (std::uint64_t x = 0; x < padded_[d]; ++x) {
          table[x * targets + p.target] += value;
          if (--left != 0) continue;
          left = p.weight;
          if (++digit == p.size) {
            digit = 0;
            value = 0;
          } else {
            value += p.stride;
          }
        }
      }
    }
  });
  return &axis_tables_->per_axis;
}

void BoundLayout::target_values(const std::uint64_t* index, std::uint64_t* values) const {
  const std::size_t targets = target_count();
  for (std::size_t t = 0; t < targets; ++t) values[t] = 0;
  const std::vector<std::vector<std::uint64_t>>* tables = axis_tables();
  for (std::size_t d = 0; d < shape_.size(); ++d) {
    if (tables && !(*tables)[d].empty()) {
      const std::uint64_t* row = (*tables)[d].data() + index[d] * targets;
      for (std::size_t t = 0; t < targets; ++t) values[t] += row[t];
    } else {
      for (std::size_t i = 0; i < dist_count_; ++i) {
        const Part& p = parts_[i];
        if (p.axis == static_cast<int>(d)) values[p.target] += (index[d] / p.weight) % p.size * p.stride;
      }
    }
  }
}

void BoundLayout::apply_replica(std::uint64_t replica, std::uint64_t* values,
                                std::vector<std::uint64_t>& units) const {
  // Row-major over replica_radix_: the last radix is the least significant digit.
  std::size_t n = replica_radix_.size();
  for (std::size_t j = n; j-- > 0;) {
    std::uint64_t digit = replica % replica_radix_[j];
    replica /= replica_radix_[j];
    std::size_t bcast = parts_.size() - dist_count_;
    if (j < bcast) {
      const Part& p = parts_[dist_count_ + j];
      values[p.target] += digit * p.stride;
    } else {
      units[omitted_[j - bcast]] = digit;
    }
  }
}

void BoundLayout::locate_into(const std::uint64_t* index, Location& out, std::uint64_t replica) const {
  std::uint64_t values[64];
  std::vector<std::uint64_t> big;
  std::uint64_t* v = values;
  if (target_count() > 64) {
    big.resize(target_count());
    v = big.data();
  }
  target_values(index, v);
  out.units.resize(fanouts_.size());
  for (std::size_t lv : omitted_) out.units[lv] = 0;
  if (replica != 0) apply_replica(replica, v, out.units);
  for (std::size_t lv = 0; lv < fanouts_.size(); ++lv)
    if (!decoders_[lv].parts.empty()) out.units[lv] = v[lv];
  out.addr = v[addr_target()];
  out.lane = v[lane_target()];
  out.time = v[time_target()];
  out.replica = replica;
}

Location BoundLayout::locate(const std::vector<std::uint64_t>& index) const {
  bool inside = index.size() == shape_.size();
  for (std::size_t d = 0; inside && d < index.size(); ++d) inside = index[d] < shape_[d];
  if (!inside)
    query_error(*this, "E150",
                fmt::format("index {} outside logical shape {}", shape_string(index), shape_string(shape_)));
  Location loc;
  locate_into(index.data(), loc);
  return loc;
}

bool BoundLayout::is_padding(const std::vector<std::uint64_t>& index) const {
  for (std::size_t d = 0; d < index.size() && d < shape_.size(); ++d)
    if (index[d] >= shape_[d]) return true;
  return false;
}

std::vector<Location> BoundLayout::locations(const std::vector<std::uint64_t>& index) const {
  bool inside = index.size() == padded_.size();
  for (std::size_t d = 0; inside && d < index.size(); ++d) inside = index[d] < padded_[d];
  if (!inside)
    query_error(*this, "E150",
                fmt::format("index {} outside padded shape {} (logical shape {})", shape_string(index),
                            shape_string(padded_), shape_string(shape_)));
  std::vector<Location> out(replicas_);
  for (std::uint64_t r = 0; r < replicas_; ++r) locate_into(index.data(), out[r], r);
  return out;
}

SlotContent BoundLayout::inverse(const std::vector<std::uint64_t>& units, std::uint64_t addr,
                                 std::uint64_t lane, std::uint64_t time) const {
  if (units.size() != fanouts_.size())
    query_error(*this, "E151",
                fmt::format("a location needs {} unit coordinates, got {}", fanouts_.size(), units.size()));
  for (std::size_t lv = 0; lv < units.size(); ++lv)
    if (units[lv] >= fanouts_[lv])
      query_error(
          *this, "E151",
          fmt::format("{} {} does not exist (fan-out {})", level_names_[lv], units[lv], fanouts_[lv]));
  if (lane >= words_per_address_)
    query_error(*this, "E151",
                fmt::format("lane {} does not exist ({} per LM address)", lane, words_per_address_));

  SlotContent out;
  std::vector<std::uint64_t> digits(parts_.size(), 0);
  for (std::size_t lv = 0; lv < fanouts_.size(); ++lv)
    if (!decoders_[lv].parts.empty() && !decoders_[lv].decode(units[lv], parts_, digits.data())) return out;
  if (!decoders_[addr_target()].decode(addr, parts_, digits.data())) return out;
  if (!decoders_[lane_target()].decode(lane, parts_, digits.data())) return out;
  if (!decoders_[time_target()].decode(time, parts_, digits.data())) return out;

  out.index.assign(shape_.size(), 0);
  for (std::size_t i = 0; i < dist_count_; ++i) out.index[parts_[i].axis] += digits[i] * parts_[i].weight;
  std::uint64_t replica = 0;
  std::size_t bcast = parts_.size() - dist_count_;
  for (std::size_t j = 0; j < replica_radix_.size(); ++j) {
    std::uint64_t digit = j < bcast ? digits[dist_count_ + j] : units[omitted_[j - bcast]];
    replica = replica * replica_radix_[j] + digit;
  }
  out.replica = replica;
  out.kind = is_padding(out.index) ? SlotKind::Padding : SlotKind::Element;
  return out;
}

}  // namespace treesim::layout
