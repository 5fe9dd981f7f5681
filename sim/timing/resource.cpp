#include "sim/timing/resource.h"

namespace treesim::timing {

const char* unit_name(Unit u) {
  switch (u) {
    case Unit::kMac:
      return "mac";
    case Unit::kDptDecoder:
      return "dpt_decoder";
    case Unit::kRequant:
      return "requant";
    case Unit::kCopy:
      return "copy";
  }
  return "?";
}

std::size_t Resource::index() const {
  switch (kind_) {
    case Kind::kDram:
      return 0;
    case Kind::kUnit:
      return 1 + static_cast<std::size_t>(unit_);
    case Kind::kPort:
      return 1 + kUnitCount + 2 * level_ + (direction_ == Direction::kUp ? 1 : 0);
  }
  return 0;
}

Resource Resource::from_index(std::size_t i) {
  if (i == 0) return dram();
  if (i <= kUnitCount) return unit(kUnits[i - 1]);
  const std::size_t p = i - 1 - kUnitCount;
  return port(p / 2, p % 2 ? Direction::kUp : Direction::kDown);
}

std::vector<Resource> Resource::all(const machine::MachineConfig& m) {
  std::vector<Resource> out;
  for (std::size_t i = 0; i < count(m.levels.size()); ++i) out.push_back(from_index(i));
  return out;
}

std::string name(Resource r, const machine::MachineConfig& m) {
  switch (r.kind()) {
    case Resource::Kind::kDram:
      return "dram";
    case Resource::Kind::kUnit:
      return unit_name(r.pe_unit());
    case Resource::Kind::kPort:
      return m.levels.at(r.level()).name + (r.direction() == Direction::kUp ? ".up" : ".down");
  }
  return "?";
}

const char* trace_name(Resource r) {
  switch (r.kind()) {
    case Resource::Kind::kDram:
      return "dram";
    case Resource::Kind::kPort:
      return r.direction() == Direction::kUp ? "up" : "down";
    case Resource::Kind::kUnit:
      break;
  }
  switch (r.pe_unit()) {
    case Unit::kMac:
      return "mac";
    case Unit::kDptDecoder:
      return "dpt";
    case Unit::kRequant:
      return "requant";
    case Unit::kCopy:
      return "copy";
  }
  return "?";
}

const char* work_name(Resource r) {
  if (r.kind() == Resource::Kind::kUnit && r.pe_unit() == Unit::kMac) return "macs";
  if (r.kind() == Resource::Kind::kUnit && r.pe_unit() == Unit::kRequant) return "values";
  return "bytes";
}

}  // namespace treesim::timing
