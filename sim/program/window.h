// A load's window (instruction.h: Window): the matrix it makes of an NHWC tensor, which tensor
// elements a block of that matrix reads, and the block's bytes made from the tensor's. The
// checker, the sequencer and the cost model share these, so DRAM's bytes and the slots' values
// come from one definition.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/program/instruction.h"

namespace treesim::program {

// The window's matrix for a tensor of shape [N, H, W, C]: {N·out_h·out_w, channels·r·s}; none when
// a size overflows 64 bits.
std::optional<std::vector<std::uint64_t>> window_matrix_shape(const Window& w,
                                                              const std::vector<std::uint64_t>& tensor);

// What makes the window unusable on the tensor (one phrase), or "" when it is fine: a tensor of
// rank other than 4, zero sizes, strides or dilations, channels outside [0, C), a window whose
// every element is padding.
std::string window_error(const Window& w, const std::vector<std::uint64_t>& tensor);

// A run of consecutive elements of the tensor (row-major indices).
struct ElementRun {
  std::uint64_t first = 0, count = 0;
  bool operator==(const ElementRun& o) const { return first == o.first && count == o.count; }
};

// The runs of set marks: element base + i is in a run where marks[i] is 1 (marks are 0 or 1).
std::vector<ElementRun> marked_runs(const std::vector<std::uint8_t>& marks, std::uint64_t base);

// The distinct tensor elements that the block [offset, offset + shape) of the window's matrix
// reads, as sorted, disjoint, maximal runs.
std::vector<ElementRun> window_runs(const Window& w, const std::vector<std::uint64_t>& tensor,
                                    const std::vector<std::uint64_t>& offset,
                                    const std::vector<std::uint64_t>& shape);

// The tensor elements the block reads, one per slot inside the image (repeats included, padding
// left out), in the block's row-major order, appended to `out`.
void window_elements(const Window& w, const std::vector<std::uint64_t>& tensor,
                     const std::vector<std::uint64_t>& offset, const std::vector<std::uint64_t>& shape,
                     std::vector<std::uint64_t>& out);

// The block's elements, row-major, into `dst` (shape[0]·shape[1]·element_bytes bytes): each from
// `src`, where src holds the tensor's element e at (e − base)·element_bytes, or `pad` (its low
// element_bytes bytes, little-endian) where the window falls outside the image.
void expand_window(const Window& w, const std::vector<std::uint64_t>& tensor,
                   const std::vector<std::uint64_t>& offset, const std::vector<std::uint64_t>& shape,
                   const std::uint8_t* src, std::uint64_t base, std::size_t element_bytes, std::int32_t pad,
                   std::uint8_t* dst);

// "r,s,stride_h,stride_w,dilation_h,dilation_w,pad_top,pad_left,out_h,out_w,c0,channels", as program
// text writes a window.
std::string window_text(const Window& w);

}  // namespace treesim::program
