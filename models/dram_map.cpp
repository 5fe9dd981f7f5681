#include "models/dram_map.h"

#include <algorithm>

namespace treesim::models {
namespace {

std::uint64_t align64(std::uint64_t bytes) { return (bytes + 63) / 64 * 64; }

std::uint64_t split_piece(std::uint64_t bytes, std::uint64_t channels) {
  return std::max<std::uint64_t>(64, align64((bytes + channels - 1) / channels));
}

}  // namespace

DramMap::DramMap(const machine::MachineConfig& machine, const std::vector<TensorPlacement>& tensors) {
  channels_ = machine.dram_channels();
  if (channels_ > 1 && machine.dram.placement == machine::DramPlacement::kInterleave)
    interleave_ = machine.dram.interleave_bytes;
  std::uint64_t end = 0;
  for (const TensorPlacement& t : tensors) {
    Placed p{end, t.bytes, {}};
    std::uint64_t span = align64(t.bytes);  // the bytes it needs in the busiest channel
    if (channels_ > 1 && interleave_) {
      const std::uint64_t pieces = std::max<std::uint64_t>(1, (t.bytes + interleave_ - 1) / interleave_);
      span = (pieces + channels_ - 1) / channels_ * interleave_;
    } else if (channels_ > 1) {
      // Each channel packs its elements in the tensor's order; a run ends where the channel changes.
      // Elements not placed (all of them, for split) fall in the equal pieces of a split.
      const std::uint64_t eb = t.element_bytes, piece = split_piece(t.bytes, channels_);
      std::vector<std::uint64_t> used(channels_, 0);
      auto add = [&](std::uint64_t from, std::uint64_t to, std::uint64_t c) {  // bytes [from, to)
        if (p.runs.empty() || p.runs.back().channel != c) p.runs.push_back({from, c, used[c]});
        used[c] += to - from;
      };
      auto split = [&](std::uint64_t from, std::uint64_t to) {
        for (std::uint64_t o = from, next = 0; o < to; o = next) {
          next = std::min(to, (o / piece + 1) * piece);
          add(o, next, o / piece);
        }
      };
      std::uint64_t done = 0;
      for (const TensorPlacement::Run& r : t.placed) {
        split(done, r.begin * eb);
        add(r.begin * eb, r.end * eb, r.channel);
        done = r.end * eb;
      }
      split(done, t.bytes);
      span = std::max<std::uint64_t>(64, align64(*std::max_element(used.begin(), used.end())));
    }
    if (p.runs.empty()) p.runs.push_back({0, 0, 0});  // one channel, or no bytes: channel 0 from the base
    end += span;
    tensors_.push_back(std::move(p));
  }
  end_ = end;
}

DramMap::Span DramMap::at(std::size_t tensor, std::uint64_t offset, std::uint64_t limit) const {
  const Placed& p = tensors_[tensor];
  if (interleave_) {
    const std::uint64_t piece = offset / interleave_, within = offset % interleave_;
    return {piece % channels_, p.base + piece / channels_ * interleave_ + within,
            std::min(limit, interleave_ - within)};
  }
  auto run = std::upper_bound(p.runs.begin(), p.runs.end(), offset,
                              [](std::uint64_t o, const Run& r) { return o < r.begin; });
  const std::uint64_t end = run == p.runs.end() ? std::max(p.bytes, offset + limit) : run->begin;
  --run;
  return {run->channel, p.base + run->at + (offset - run->begin), std::min(limit, end - offset)};
}

bool DramMap::whole(std::size_t tensor) const {
  return channels_ == 1 || (!interleave_ && tensors_[tensor].runs.size() == 1) ||
         (interleave_ && tensors_[tensor].bytes <= interleave_);
}

}  // namespace treesim::models
