#include "sim/timing/resource.h"

namespace treesim::timing {

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
  if (i <= kUnitCount) return unit(static_cast<Unit>(i - 1));
  const std::size_t p = i - 1 - kUnitCount;
  return port(p / 2, p % 2 ? Direction::kUp : Direction::kDown);
}

std::vector<Resource> Resource::all(const machine::MachineConfig& m) {
  std::vector<Resource> out;
  for (std::size_t i = 0; i < count(m.levels.size()); ++i) {
    const Resource r = from_index(i);
    if (r.kind() != Kind::kUnit || has_unit(m, r.pe_unit())) out.push_back(r);
  }
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
  return spec(r.pe_unit()).trace_name;
}

const char* work_name(Resource r) {
  return r.kind() == Resource::Kind::kUnit ? spec(r.pe_unit()).work_name : "bytes";
}

}  // namespace treesim::timing
