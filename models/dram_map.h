// Where each program tensor lives in DRAM: its channel and address for every byte. One DRAM holds
// every tensor whole, one after another, 64-byte aligned. With channels (one per unit of a level) a
// tensor starts at the same address in every channel and is spread over them by the machine's
// placement: each element in a channel of its own (by layout, models/dram_placement.h), the
// channel's elements packed in the tensor's order; in equal contiguous pieces (split, and the
// elements no transfer places); or `interleave_bytes` at a time in turn.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/machine/machine_config.h"

namespace treesim::models {

// A tensor to place: its size and, by layout, the channel of some of its elements.
struct TensorPlacement {
  // Elements [begin, end) in `channel`.
  struct Run {
    std::uint64_t begin = 0, end = 0, channel = 0;
  };
  std::uint64_t bytes = 0;
  std::uint64_t element_bytes = 1;
  std::vector<Run> placed;  // sorted, disjoint; the elements between them are not placed
};

class DramMap {
 public:
  struct Span {
    std::uint64_t channel = 0, address = 0, bytes = 0;
  };

  DramMap(const machine::MachineConfig& machine, const std::vector<TensorPlacement>& tensors);

  std::uint64_t channels() const { return channels_; }
  // Bytes every channel needs (the highest address used, + 1).
  std::uint64_t bytes_per_channel() const { return end_; }
  // Tensor `tensor`'s byte `offset`: its channel and address, and how many of the next `limit`
  // bytes follow it there contiguously.
  Span at(std::size_t tensor, std::uint64_t offset, std::uint64_t limit) const;
  // The tensor lies in one channel, contiguous from base().
  bool whole(std::size_t tensor) const;
  std::uint64_t base(std::size_t tensor) const { return tensors_[tensor].base; }

 private:
  // Bytes [begin, next run's begin) of a tensor lie in `channel` from the tensor's base + `at`.
  struct Run {
    std::uint64_t begin = 0, channel = 0, at = 0;
  };
  struct Placed {
    std::uint64_t base = 0, bytes = 0;
    std::vector<Run> runs;  // none when interleaved
  };

  std::uint64_t channels_ = 1, end_ = 0, interleave_ = 0;
  std::vector<Placed> tensors_;
};

}  // namespace treesim::models
