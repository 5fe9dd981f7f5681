// TensorLayout: PFN's placement notation as a value. `((4_PE, 3:8), (8:1))` puts a 12×8 matrix on 4
// PEs: one tuple per tensor axis, each split into sub-axes (first = most significant digit, i.e.
// row-major, the reverse of CuTe); a sub-axis feeds one target (an LM address, a level of the
// machine, a word lane `_W`, or a time step `_Time`) with a stride. Broadcast items replicate.
// The value is machine-independent except for level names; binding it to a machine and a tensor
// shape (bound_layout.h) validates it and gives the maps.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace treesim::layout {

enum class TargetKind { Addr, Level, Lane, Time };  // Lane = `_W`, Time = `_Time`

struct Target {
  TargetKind kind = TargetKind::Addr;
  std::string level;  // the machine's level name when kind == Level

  bool operator==(const Target& o) const { return kind == o.kind && level == o.level; }
  bool operator!=(const Target& o) const { return !(*this == o); }
};

// Where a token sits in the layout's source text: 0-based offset and length.
struct Span {
  std::size_t begin = 0;
  std::size_t length = 0;
};

struct SubAxis {
  std::uint64_t size = 1;
  Target target;
  std::uint64_t stride = 0;     // resolved: written, or the row-major default of its target
  bool stride_written = false;  // as written; only the parser's E110/E111 rules look at it
  Span span;                    // not part of the value
};

// One item of `B@[...]`: a bare level (`PE` = all of its units, stride 1, sized when bound to a
// machine) or a sized, strided replication over a level (`8_L2B:1`).
struct Broadcast {
  std::string level;
  bool whole_level = false;
  std::uint64_t size = 0;  // 0 while whole_level
  std::uint64_t stride = 0;
  bool stride_written = false;
  Span span;
};

struct TensorLayout {
  // The pad prefix `(10,7)/`; absent when every padded extent equals the logical one.
  std::optional<std::vector<std::uint64_t>> logical_shape;
  std::vector<std::vector<SubAxis>> axes;  // one tuple per tensor axis
  // Sorted by machine level (root first, stable): replica ids count in this order.
  std::vector<Broadcast> broadcasts;

  // Text and token positions for diagnostics; not part of the value.
  std::string source;
  std::vector<Span> axis_spans;
  Span prefix_span;
  Span layout_span;  // the whole string

  std::size_t rank() const { return axes.size(); }
  // Π sizes per axis (saturating at 2^63 so that absurd inputs stay comparable).
  std::vector<std::uint64_t> padded_shape() const;
  bool has_target(TargetKind kind) const;
};

// Representation equality (resolved sizes, targets, strides, broadcasts, pad prefix), as CuTe's ==.
bool operator==(const SubAxis& a, const SubAxis& b);
bool operator==(const Broadcast& a, const Broadcast& b);
bool operator==(const TensorLayout& a, const TensorLayout& b);
inline bool operator!=(const TensorLayout& a, const TensorLayout& b) { return !(a == b); }

// The canonical text (note §3): strides always on address sub-axes, on level/W/Time sub-axes when
// their target has more than one sub-axis (broadcast items included) or a stride ≠ 1; broadcast
// list inside the parentheses. parse(to_string(L)) == L.
std::string to_string(const TensorLayout& layout);
std::ostream& operator<<(std::ostream& out, const TensorLayout& layout);

// "(12,8)" — shapes and indices the way messages print them.
std::string shape_string(const std::vector<std::uint64_t>& shape);

}  // namespace treesim::layout
