// Per-unit views (what one unit holds), the one-line summary and the tensor-view grid: the ways a
// person reads a bound layout (note §6, after JAX's devices_indices_map and CuTe's print_layout).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/layout/bound_layout.h"

namespace treesim::layout {

// An arithmetic run of indices: start, start+step, ..., count of them.
struct IndexRun {
  std::uint64_t start = 0, count = 0, step = 1;
  bool operator==(const IndexRun& o) const { return start == o.start && count == o.count && step == o.step; }
};

struct UnitView {
  bool used = false;                        // the unit holds at least one slot
  std::vector<std::vector<IndexRun>> axes;  // per axis: the padded coordinates it holds
  std::uint64_t slots = 0;                  // padded slots held (elements + padding), all time steps
  std::uint64_t elements = 0;               // of which logical elements
  std::uint64_t replica = 0;                // which replica these are
  std::uint64_t addresses = 0;              // LM address extent used (holes included)
};

// What the unit at `units` (one coordinate per level, root first) holds. The held set is a product
// over axes, because a unit fixes the level digits and leaves the address, lane and time digits free.
UnitView unit_view(const BoundLayout& layout, const std::vector<std::uint64_t>& units);

// Compresses sorted indices into arithmetic runs.
std::vector<IndexRun> to_runs(const std::vector<std::uint64_t>& sorted);
std::string runs_string(const std::vector<IndexRun>& runs);  // "0:4:1" style: "0..3", "1,5,9" → "1..9 step 4"

// One line, e.g. `i8[12: 4_PE×3, 8] 24 words/PE (24 B), 4 of 4 PEs, replicated ×1`.
std::string summary(const BoundLayout& layout, const std::string& type_name);

// The tensor view of a rank-2 layout: one cell per padded element, `pe:addr` of replica 0 (global
// PE id; `.lane` and `t<time>/` when used), padding cells marked `*`. Empty for other ranks or when
// the padded shape exceeds max_rows × max_cols.
std::string tensor_grid(const BoundLayout& layout, std::uint64_t max_rows = 32, std::uint64_t max_cols = 32);

}  // namespace treesim::layout
