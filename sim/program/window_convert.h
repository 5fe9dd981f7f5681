// A windowed convert's traffic (instruction.h: Convert::window): a tensor held in the LMs by `from`
// is read by the slots of `to`, a block of the window's matrix. Every slot takes its element from
// the nearest copy, through the lowest level the two PEs share; an element
// crosses a link once however many slots below it read it (a convolution's windows overlap, so a
// border element is read by several PEs and an inner one by several slots of one PE):
//   down_delivered(X) = Σ_{U at X} |elements read by slots below U, held outside U|
//   down_sent(X)      = Σ_{parents P} |elements P sends to any of its children|  (once per port)
//   up(X)             = Σ_{U at X} |elements held below U, read by slots outside U|
//   busiest ports     = the largest parent port's bytes each way
//   copies_by_lca[d]  = slots whose PE shares d levels with the element's holder; the last entry,
//                       slots whose element their own PE holds, is the copy unit's work
// Slots outside the image take the pad value in place and move nothing. The same definitions as
// layout::plan_conversion's (convert.h), with each slot's element given by the window.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/layout/bound_layout.h"
#include "sim/layout/convert.h"
#include "sim/program/instruction.h"

namespace treesim::program {

// @pre `from` binds the tensor (any shape of `tensor`'s elements), `to` the block of
// the window's matrix at `offset`, both on one machine; `tensor` is the NHWC shape the window reads.
layout::ConversionPlan window_conversion(const Window& w, const std::vector<std::uint64_t>& tensor,
                                         const std::vector<std::uint64_t>& offset,
                                         const layout::BoundLayout& from, const layout::BoundLayout& to);

}  // namespace treesim::program
