// A waveform's identity: the holds it is derived from, tagged by what they drive. Units whose keys
// are equal have equal waveforms, so a trace may show them with one identifier (VCD) or one
// representative (JSON): sharing is proven by comparing, never assumed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/trace/trace_log.h"

namespace treesim::trace {

class TimelineKey {
 public:
  void add(int tag, const std::vector<Hold>& holds) {
    mix(static_cast<std::uint64_t>(tag) + 0x9e3779b97f4a7c15ull);
    mix(holds.size());
    for (const Hold& h : holds) {
      mix(h.start);
      mix(h.end);
      mix(h.work);
      mix(h.instr);
    }
    parts_.push_back({tag, holds});
  }
  std::size_t hash() const { return static_cast<std::size_t>(hash_); }
  bool operator==(const TimelineKey& o) const { return hash_ == o.hash_ && parts_ == o.parts_; }

 private:
  void mix(std::uint64_t v) { hash_ ^= v + 0x9e3779b97f4a7c15ull + (hash_ << 6) + (hash_ >> 2); }
  std::uint64_t hash_ = 0;
  std::vector<std::pair<int, std::vector<Hold>>> parts_;
};

// Distinct keys and a value for each.
template <typename T>
class KeyTable {
 public:
  const T* find(const TimelineKey& key) const {
    auto it = buckets_.find(key.hash());
    if (it == buckets_.end()) return nullptr;
    for (const auto& [k, v] : it->second)
      if (k == key) return &v;
    return nullptr;
  }
  void insert(TimelineKey key, T value) {
    const std::size_t h = key.hash();
    buckets_[h].emplace_back(std::move(key), std::move(value));
  }

 private:
  std::unordered_map<std::size_t, std::vector<std::pair<TimelineKey, T>>> buckets_;
};

}  // namespace treesim::trace
