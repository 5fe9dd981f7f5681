// Binding's steps (note §4.5), private to sim/layout. Each step needs the previous ones to hold, so
// the driver stops at the first one that records an error. bind.cpp has the driver and the checks on
// the layout's shape, parts and fan-outs; bind_targets.cpp the per-target decoders (the injectivity
// check), the LM capacity and the forward map's axis tables.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/layout/bound_layout.h"

namespace treesim::layout {

// One binding: the layout, shape and machine being bound, the result being filled and the steps that
// fill it (BoundLayout's friend).
class Binder {
 public:
  Binder(const TensorLayout& l, const std::vector<std::uint64_t>& shape,
         const machine::MachineConfig& machine, std::size_t element_bytes, LmCapacity capacity);
  BindResult run();

 private:
  static constexpr std::uint64_t kCap = std::uint64_t{1} << 62;
  // Largest target range kept as a decoder table.
  static constexpr std::uint64_t kTableLimit = std::uint64_t{1} << 24;
  // Combinations tried when looking for a collision in a larger, irregular range: bounds the hash
  // map to tens of MB and a fraction of a second.
  static constexpr std::uint64_t kSearchLimit = std::uint64_t{1} << 20;

  static std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) {
    return (b != 0 && a > kCap / b) ? kCap + 1 : a * b;
  }
  static std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) {
    return a > kCap - std::min(b, kCap) ? kCap + 1 : a + b;
  }

  // The steps (run() calls them in order); those returning bool return false once they have recorded
  // an error. In bind.cpp:
  bool check_shape();
  bool resolve_parts();
  void size_targets();
  bool check_fanouts();
  void add_warnings();  // once every check has passed
  // In bind_targets.cpp:
  bool check_capacity(bool before_enumerating);
  bool build_decoders();
  bool build_decoder(int t);  // one target of build_decoders

  // One target's digits from a row-major combination id, every other digit 0, as the element (and
  // replica) it stands for: the two halves of an injectivity witness pair.
  struct Witness {
    std::string text;
    std::uint64_t value;
    std::vector<std::uint64_t> digits;
  };
  Witness witness(int t, std::uint64_t combo) const;
  bool collision(int t, std::uint64_t first, std::uint64_t second);

  Diagnostic diag(const std::string& code, const std::string& msg, Span span,
                  const std::string& hint = "") const;
  bool fail(const std::string& code, const std::string& msg, Span span, const std::string& hint = "");
  void warn(const std::string& code, const std::string& msg, Span span);
  std::string pe_name() const;

  const TensorLayout& l_;
  const std::vector<std::uint64_t>& shape_;
  const machine::MachineConfig& machine_;
  const std::size_t levels_, rank_;
  const int addr_t_, lane_t_, time_t_;
  BindResult result_;
  BoundLayout b_;
};

}  // namespace treesim::layout
