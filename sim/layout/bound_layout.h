// A TensorLayout bound to a machine, a tensor shape and an element size: validated (note §4.5) and
// ready to map. Binding is where every rule that needs numbers is checked (fan-outs, injectivity per
// target with a witness pair, LM capacity); the bound value then answers the forward map
// (index → every replica's location) and the exact inverse (location → element / padding / empty).
//
// Targets are numbered 0..L-1 for the machine's levels (root first), then L = LM address,
// L+1 = word lane (`_W`), L+2 = time step (`_Time`).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "sim/layout/diagnostic.h"
#include "sim/layout/tensor_layout.h"
#include "sim/machine/machine_config.h"

namespace treesim::layout {

// One replica's place: unit coordinates per level (root first, each < that level's fan-out), LM
// address (in addresses of words_per_address elements), lane inside the address, time step.
struct Location {
  std::vector<std::uint64_t> units;
  std::uint64_t addr = 0;
  std::uint64_t lane = 0;
  std::uint64_t time = 0;
  std::uint64_t replica = 0;  // note §4.3.7: broadcast digits (row-major), then omitted levels

  bool operator==(const Location& o) const {
    return units == o.units && addr == o.addr && lane == o.lane && time == o.time && replica == o.replica;
  }
};

enum class SlotKind { Element, Padding, Empty };

// What one (unit, address, lane, time) holds.
struct SlotContent {
  SlotKind kind = SlotKind::Empty;
  std::vector<std::uint64_t> index;  // the (padded) tensor index, for Element and Padding
  std::uint64_t replica = 0;
};

struct Validation {
  std::vector<Diagnostic> errors;  // binding stops at the first error, so at most one
  std::vector<Diagnostic> warnings;
  bool ok() const { return errors.empty(); }
};

class BoundLayout;
class Binder;
struct BindResult;

class BoundLayout {
 public:
  // A sub-axis after binding. Distribution parts come first in textual order, then broadcast parts.
  struct Part {
    std::uint64_t size = 1;
    std::uint64_t stride = 0;
    std::uint64_t weight = 0;  // digit weight inside its axis (row-major); 0 for broadcast parts
    int axis = -1;             // -1: a broadcast part
    int target = 0;
    Span span;
  };

  const TensorLayout& layout() const { return layout_; }
  const std::vector<std::uint64_t>& shape() const { return shape_; }          // logical
  const std::vector<std::uint64_t>& padded_shape() const { return padded_; }  // Π sub-axis sizes
  std::size_t rank() const { return shape_.size(); }
  std::size_t level_count() const { return fanouts_.size(); }
  const std::string& level_name(std::size_t level) const { return level_names_[level]; }
  std::uint64_t fanout(std::size_t level) const { return fanouts_[level]; }
  std::size_t element_bytes() const { return element_bytes_; }
  std::uint64_t words_per_address() const { return words_per_address_; }
  std::uint64_t lm_addresses() const { return lm_addresses_; }  // LM capacity for this element size

  int addr_target() const { return static_cast<int>(fanouts_.size()); }
  int lane_target() const { return addr_target() + 1; }
  int time_target() const { return addr_target() + 2; }
  std::size_t target_count() const { return fanouts_.size() + 3; }

  const std::vector<Part>& parts() const { return parts_; }
  std::size_t distribution_part_count() const { return dist_count_; }
  // Parts feeding a target, in textual order.
  const std::vector<std::size_t>& target_parts(int target) const { return decoders_[target].parts; }
  // cosize = Σ (n−1)σ + 1 over the target's parts: the extent it spans, holes included.
  std::uint64_t cosize(int target) const { return decoders_[target].cosize; }
  // Sets digits[i] for each part i of `target` to the digit that gives `value`; false when none does.
  bool decode(int target, std::uint64_t value, std::uint64_t* digits) const {
    return decoders_[target].decode(value, parts_, digits);
  }
  // Levels no sub-axis names: the tensor is copied into every unit of them.
  const std::vector<std::size_t>& omitted_levels() const { return omitted_; }
  bool level_is_omitted(std::size_t level) const { return decoders_[level].parts.empty(); }
  std::uint64_t replicas() const { return replicas_; }
  bool has_lanes() const { return !decoders_[lane_target()].parts.empty(); }
  bool has_time() const { return !decoders_[time_target()].parts.empty(); }

  std::uint64_t logical_elements() const;
  std::uint64_t padded_elements() const;
  // LM bytes a used PE needs: address extent × words per address × element bytes.
  std::uint64_t footprint_bytes_per_unit() const;
  // PEs in the whole machine holding at least one slot of the tensor.
  std::uint64_t pes_used() const;
  // PEs in the whole machine, used or not: the product of the levels' fanouts.
  std::uint64_t pe_count() const;

  // Global PE id of unit coordinates (note §4.3.5): ((u0·F1 + u1)·F2 + u2)·F3 + u3.
  std::uint64_t pe_id(const std::vector<std::uint64_t>& units) const;
  // Σ over levels below `level` of the fan-out product: the PE-id weight of one step at `level`.
  std::uint64_t pe_weight(std::size_t level) const { return pe_weight_[level]; }

  // Replica 0 (broadcast digits and omitted levels at 0) of a logical index.
  // Throws LayoutError E150 when the index is outside the logical shape.
  Location locate(const std::vector<std::uint64_t>& index) const;
  // Every replica of a padded index (index < padded shape; throws E150 otherwise), by replica id.
  std::vector<Location> locations(const std::vector<std::uint64_t>& index) const;
  bool is_padding(const std::vector<std::uint64_t>& index) const;
  // The fast path: no checks, `index` has rank() entries < padded_shape(); `out.units` is reused.
  void locate_into(const std::uint64_t* index, Location& out, std::uint64_t replica = 0) const;

  // Exact inverse. Throws LayoutError E151 when the location is outside the machine (a unit
  // coordinate ≥ its fan-out, a lane ≥ words per address, or units of the wrong length).
  SlotContent inverse(const std::vector<std::uint64_t>& units, std::uint64_t addr, std::uint64_t lane = 0,
                      std::uint64_t time = 0) const;

  // Per-target values of the distribution parts for a padded index (size target_count()).
  void target_values(const std::uint64_t* index, std::uint64_t* values) const;
  // Broadcast digit values and omitted-level coordinates of a replica id.
  void apply_replica(std::uint64_t replica, std::uint64_t* values, std::vector<std::uint64_t>& units) const;

 private:
  friend class Binder;  // bind_layout's steps (bind_steps.h)

  // Decodes a target value into the digits of its parts: a table over [0, cosize) when small,
  // greedy division when the strides nest (each exceeds the reach of the smaller ones).
  struct Decoder {
    std::vector<std::size_t> parts;
    std::uint64_t cosize = 1;
    // Combo id (row-major over parts) or kNone. Tables are shared by copies: a program holds a
    // copy of its tile layouts per instruction.
    std::shared_ptr<const std::vector<std::uint32_t>> table;
    std::vector<std::size_t> greedy_order;  // parts by decreasing stride, when no table
    bool decode(std::uint64_t value, const std::vector<Part>& all, std::uint64_t* digits) const;
  };
  static constexpr std::uint32_t kNone = 0xffffffffu;

  TensorLayout layout_;
  std::vector<std::uint64_t> shape_, padded_;
  std::vector<std::string> level_names_;
  std::vector<std::uint64_t> fanouts_, pe_weight_;
  std::size_t element_bytes_ = 1;
  std::uint64_t words_per_address_ = 1, lm_addresses_ = 0;
  std::vector<Part> parts_;
  std::size_t dist_count_ = 0;
  std::vector<std::size_t> omitted_;
  std::vector<std::uint64_t> replica_radix_;  // broadcast part sizes, then omitted fan-outs
  std::uint64_t replicas_ = 1;
  std::vector<Decoder> decoders_;  // per target
  // Per axis, when small: for each padded coordinate, its contribution to every target
  // (P_d × target_count() entries). Turns the forward map into rank() × targets additions. Built
  // on the first forward map, once for all copies: planners and the program checker bind hundreds
  // of layouts and map none.
  static constexpr std::uint64_t kAxisTableLimit = std::uint64_t{1} << 20;
  struct AxisTables {
    std::once_flag built;
    std::vector<std::vector<std::uint64_t>> per_axis;  // empty for an axis too long to table
  };
  std::shared_ptr<AxisTables> axis_tables_;  // null: none (a layout that was never bound)
  const std::vector<std::vector<std::uint64_t>>* axis_tables() const;
};

struct BindResult {
  std::optional<BoundLayout> layout;
  Validation validation;
  explicit operator bool() const { return layout.has_value(); }
};

// Whether a binding checks that the footprint fits the PE's LM (E070). kUnchecked binds a whole
// operand that a kernel streams in tiles (only its distribution matters), as if the LM were 2^62
// bytes.
enum class LmCapacity { kChecked, kUnchecked };

// @pre layout came from parse_layout (strides resolved) with this machine's level names.
// @post on success: every (padded index, replica) has a distinct location; LM footprint fits
// (with kChecked).
BindResult bind_layout(const TensorLayout& layout, const std::vector<std::uint64_t>& shape,
                       const machine::MachineConfig& machine, std::size_t element_bytes = 1,
                       LmCapacity capacity = LmCapacity::kChecked);
inline Validation validate(const TensorLayout& layout, const std::vector<std::uint64_t>& shape,
                           const machine::MachineConfig& machine, std::size_t element_bytes = 1) {
  return bind_layout(layout, shape, machine, element_bytes).validation;
}
// Throws LayoutError with the first error.
BoundLayout bind_or_throw(const TensorLayout& layout, const std::vector<std::uint64_t>& shape,
                          const machine::MachineConfig& machine, std::size_t element_bytes = 1,
                          LmCapacity capacity = LmCapacity::kChecked);

// The loader places everything at once: a `_Time` layout is not resident (E140).
void require_resident(const BoundLayout& layout);

}  // namespace treesim::layout
