// The names of a module's per-DRAM-channel sockets and targets: a machine with one DRAM keeps the
// plain name ("dram_socket", "dram"), one with channels numbers them ("dram_socket_0", "dram_1").
#pragma once

#include <cstddef>
#include <string>

namespace treesim::models {

inline std::string channel_name(const std::string& base, std::size_t index, std::size_t count) {
  return count == 1 ? base : base + "_" + std::to_string(index);
}

// An sc_vector creator: element i named channel_name(base, i, count).
template <typename T>
struct ChannelNamed {
  std::string base;
  std::size_t count;
  T* operator()(const char*, std::size_t i) const { return new T(channel_name(base, i, count).c_str()); }
};

}  // namespace treesim::models
