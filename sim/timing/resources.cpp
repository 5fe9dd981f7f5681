#include "sim/timing/resources.h"

#include <algorithm>
#include <stdexcept>

namespace treesim::timing {

Resources::Resources(const machine::MachineConfig& config) {
  names_ = {"dram", "mac", "dpt_decoder", "requant", "copy"};
  for (const auto& level : config.levels) {
    names_.push_back(level.name + ".down");
    names_.push_back(level.name + ".up");
  }
  next_free_.assign(names_.size(), 0);
  busy_.assign(names_.size(), 0);
}

void Resources::occupy(Resource r, std::uint64_t start, std::uint64_t cycles) {
  if (start < next_free_.at(r)) throw std::logic_error("resource " + names_[r] + " occupied twice at once");
  next_free_[r] = start + cycles;
  busy_[r] += cycles;
}

Cost transfer_cost(const std::vector<ResourceStage>& stages, std::uint64_t path_latency) {
  Cost cost;
  std::uint64_t longest = 0;
  for (const ResourceStage& s : stages) {
    std::uint64_t t = ceil_div(s.bytes, s.bytes_per_cycle);
    if (t == 0) continue;
    cost.uses.push_back({s.resource, t});
    longest = std::max(longest, t);
  }
  cost.latency = path_latency;
  cost.duration = path_latency + longest;
  return cost;
}

Scheduled schedule(const Cost& cost, std::uint64_t ready, Resources& resources) {
  Scheduled s;
  s.start = cost.uses.empty() ? ready : UINT64_MAX;
  std::uint64_t last = ready;
  for (const auto& use : cost.uses) {
    std::uint64_t at = std::max(ready, resources.next_free(use.resource));
    resources.occupy(use.resource, at, use.cycles);
    s.use_starts.push_back(at);
    s.start = std::min(s.start, at);
    last = std::max(last, at + use.cycles);
  }
  s.end = last + cost.latency;
  return s;
}

Cost unit_cost(Resource unit, std::uint64_t work, std::uint64_t rate, std::uint64_t latency) {
  Cost cost;
  std::uint64_t t = ceil_div(work, rate);
  if (t > 0) cost.uses.push_back({unit, t});
  cost.latency = latency;
  cost.duration = latency + t;
  return cost;
}

}  // namespace treesim::timing
