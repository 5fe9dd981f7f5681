// Where each program tensor lives in DRAM: its channel and address for every byte. One DRAM holds
// every tensor whole, one after another. With channels (one per unit of a level) a tensor is cut
// into pieces: split — as many equal pieces as channels, piece c in channel c (so a layout that
// splits the tensor's first axis over that level in order finds each unit's share in its own
// channel) — or interleaved, `interleave_bytes` at a time in turn. A tensor starts at the same
// address in every channel.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/machine/machine_config.h"

namespace treesim::models {

class DramMap {
 public:
  struct Span {
    std::uint64_t channel = 0, address = 0, bytes = 0;
  };

  // Lays out tensors of these sizes (bytes) in order, 64-byte aligned.
  DramMap(const machine::MachineConfig& machine, const std::vector<std::uint64_t>& tensor_bytes) {
    channels_ = machine.dram_channels();
    std::uint64_t end = 0;
    for (std::uint64_t bytes : tensor_bytes) {
      std::uint64_t piece = std::max<std::uint64_t>(64, (bytes + 63) / 64 * 64);
      if (channels_ > 1)
        piece = machine.dram.placement == machine::DramPlacement::kInterleave
                    ? machine.dram.interleave_bytes
                    : std::max<std::uint64_t>(64, ((bytes + channels_ - 1) / channels_ + 63) / 64 * 64);
      const std::uint64_t pieces = std::max<std::uint64_t>(1, (bytes + piece - 1) / piece);
      base_.push_back(end);
      piece_.push_back(piece);
      end += channels_ == 1 ? (bytes + 63) / 64 * 64 : (pieces + channels_ - 1) / channels_ * piece;
    }
    end_ = end;
  }

  std::uint64_t channels() const { return channels_; }
  // Bytes every channel needs (the highest address used, + 1).
  std::uint64_t bytes_per_channel() const { return end_; }
  // Tensor `tensor`'s byte `offset`: its channel and address, and how many of the next `limit`
  // bytes follow it there contiguously.
  Span at(std::size_t tensor, std::uint64_t offset, std::uint64_t limit) const {
    const std::uint64_t piece = piece_[tensor], p = offset / piece, within = offset % piece;
    return {p % channels_, base_[tensor] + p / channels_ * piece + within, std::min(limit, piece - within)};
  }
  // The tensor lies in one channel, contiguous from base(): channel 0, or a tensor of one piece.
  bool whole(std::size_t tensor, std::uint64_t bytes) const {
    return channels_ == 1 || bytes <= piece_[tensor];
  }
  std::uint64_t base(std::size_t tensor) const { return base_[tensor]; }

 private:
  std::uint64_t channels_ = 1, end_ = 0;
  std::vector<std::uint64_t> base_, piece_;
};

}  // namespace treesim::models
