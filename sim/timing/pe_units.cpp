#include "sim/timing/pe_units.h"

#include <algorithm>

namespace treesim::timing {
namespace {

bool always(const machine::PeConfig&) { return true; }

// The defaults of the optional sections are docs/timing.md §8.1's: the ternary path at the int8
// array's rate, a quarter of the DPT decoder's byte rate (at least 1) and 4 more cycles for base-3
// (four sequential divisions by 3 a byte), one sparse item per cycle at the int8 array's latency.
Rate int8_mac(const machine::PeConfig& pe) { return {pe.mac.int8_macs_per_cycle, pe.mac.latency_cycles}; }
Rate ternary_mac(const machine::PeConfig& pe) {
  return pe.ternary_mac ? Rate{pe.ternary_mac->macs_per_cycle, pe.ternary_mac->latency_cycles} : int8_mac(pe);
}
Rate sparse_walk(const machine::PeConfig& pe) {
  return pe.sparse_mac ? Rate{pe.sparse_mac->items_per_cycle, pe.sparse_mac->latency_cycles}
                       : Rate{1, pe.mac.latency_cycles};
}
Rate dpt(const machine::PeConfig& pe) {
  return {pe.dpt_decoder.bytes_per_cycle, pe.dpt_decoder.latency_cycles};
}
Rate base3(const machine::PeConfig& pe) {
  if (pe.base3_decoder) return {pe.base3_decoder->bytes_per_cycle, pe.base3_decoder->latency_cycles};
  return {std::max<std::uint64_t>(1, pe.dpt_decoder.bytes_per_cycle / 4), pe.dpt_decoder.latency_cycles + 4};
}
Rate requant(const machine::PeConfig& pe) { return {pe.requant.values_per_cycle, pe.requant.latency_cycles}; }
Rate copy(const machine::PeConfig& pe) { return {pe.copy.bytes_per_cycle, pe.copy.latency_cycles}; }
Rate vector(const machine::PeConfig& pe) {
  return pe.vector ? Rate{pe.vector->values_per_cycle, pe.vector->latency_cycles} : Rate{1, 0};
}
bool has_vector(const machine::PeConfig& pe) { return pe.vector.has_value(); }

}  // namespace

const std::array<UnitSpec, kUnitCount>& unit_specs() {
  static const std::array<UnitSpec, kUnitCount> specs{{
      {Unit::kMac, "mac", "mac", "macs", always, nullptr},
      {Unit::kDptDecoder, "dpt_decoder", "dpt", "bytes", always, nullptr},
      {Unit::kRequant, "requant", "requant", "values", always, nullptr},
      {Unit::kCopy, "copy", "copy", "bytes", always, nullptr},
      {Unit::kVector, "vector", "vector", "lane_cycles", has_vector, "vector_lane_cycles"},
  }};
  return specs;
}

const std::array<DatapathSpec, kDatapathCount>& datapath_specs() {
  static const std::array<DatapathSpec, kDatapathCount> specs{{
      {Datapath::kInt8Mac, Unit::kMac, int8_mac},
      {Datapath::kTernaryMac, Unit::kMac, ternary_mac},
      {Datapath::kSparseWalk, Unit::kMac, sparse_walk},
      {Datapath::kDpt, Unit::kDptDecoder, dpt},
      {Datapath::kBase3, Unit::kDptDecoder, base3},
      {Datapath::kRequant, Unit::kRequant, requant},
      {Datapath::kCopy, Unit::kCopy, copy},
      {Datapath::kVector, Unit::kVector, vector},
  }};
  return specs;
}

const char* unit_name(Unit u) { return spec(u).name; }

bool has_unit(const machine::MachineConfig& m, Unit u) { return spec(u).present(m.pe); }

std::vector<Unit> machine_units(const machine::MachineConfig& m) {
  std::vector<Unit> out;
  for (const UnitSpec& s : unit_specs())
    if (s.present(m.pe)) out.push_back(s.unit);
  return out;
}

}  // namespace treesim::timing
