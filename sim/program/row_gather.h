// Row gathers and scatters (Load::rows, Store::rows): the block is of a matrix whose row i is
// tensor row rows[i] (or padding). A load sends each unit the distinct tensor rows stored below it,
// once (a multicast: halo.h's need(U) in tensor elements), and DRAM reads each distinct row once; a
// store sends each non-padding block element up from its replica 0 and writes it to its row.
//   load:  as halo.h, need(U) = the tensor elements of the non-padding block rows below U
//   store: up_sent_bytes(X) = up_delivered_bytes(X) = Σ_{U at X} |non-padding elements whose replica
//          0 is below U| × bytes; a parent's port carries what its children send it
#pragma once

#include <cstdint>
#include <vector>

#include "sim/layout/bound_layout.h"
#include "sim/layout/loader_plan.h"
#include "sim/layout/port_traffic.h"
#include "sim/program/halo.h"
#include "sim/program/row_list.h"
#include "sim/program/window.h"

namespace treesim::program {

// The distinct tensor elements of block [offset, offset + shape) of the rows' matrix, where the
// tensor has `row_elements` elements per row: sorted, disjoint runs.
std::vector<ElementRun> row_runs(const RowList& rows, std::uint64_t row_elements,
                                 const std::vector<std::uint64_t>& offset,
                                 const std::vector<std::uint64_t>& shape);

// What one PE holds of a rank-2 layout: its replica and the intervals ([first, first + count)) of
// rows and of columns whose product it holds.
struct HeldBlock {
  std::uint64_t pe = 0, replica = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> rows, cols;
};
// Every used PE's, in PE order: the same for every block a layout places, so worked out once.
std::vector<HeldBlock> held_blocks(const layout::BoundLayout& bound);

// A row gather's traffic (load) of that block placed by `bound`, whose PEs hold `held`.
HaloTraffic row_gather_traffic(const RowList& rows, std::uint64_t row_elements,
                               const std::vector<std::uint64_t>& offset, const layout::BoundLayout& bound,
                               const std::vector<HeldBlock>& held);
HaloTraffic row_gather_traffic(const RowList& rows, std::uint64_t row_elements,
                               const std::vector<std::uint64_t>& offset, const layout::BoundLayout& bound);

struct RowScatterTraffic {
  layout::TrafficPlan plan;
  layout::PortTraffic ports;
};
// A row scatter's traffic (store) of that block placed by `bound`.
RowScatterTraffic row_scatter_traffic(const RowList& rows, std::uint64_t row_elements,
                                      const std::vector<std::uint64_t>& offset,
                                      const layout::BoundLayout& bound, const std::vector<HeldBlock>& held);
RowScatterTraffic row_scatter_traffic(const RowList& rows, std::uint64_t row_elements,
                                      const std::vector<std::uint64_t>& offset,
                                      const layout::BoundLayout& bound);

// The block [offset, offset + shape) of the rows' matrix, row-major at `dst`, from the tensor's
// elements at `src` (src[0] is tensor element `base`); padding rows filled with `pad`, gap rows
// left as they are.
void gather_rows(const RowList& rows, std::uint64_t row_elements, const std::vector<std::uint64_t>& offset,
                 const std::vector<std::uint64_t>& shape, const std::uint8_t* src, std::uint64_t base,
                 std::size_t element_bytes, std::int32_t pad, std::uint8_t* dst);
// The gap rows of block [offset, offset + shape) of the rows' matrix as ranges of its elements
// (row-major, [begin, end)), in order: what a load leaves as it was.
std::vector<std::pair<std::uint64_t, std::uint64_t>> gap_elements(const RowList& rows,
                                                                  const std::vector<std::uint64_t>& offset,
                                                                  const std::vector<std::uint64_t>& shape);
// The inverse: each non-padding block row from `src` (row-major) to its tensor row at `dst`
// (dst[0] is tensor element `base`).
void scatter_rows(const RowList& rows, std::uint64_t row_elements, const std::vector<std::uint64_t>& offset,
                  const std::vector<std::uint64_t>& shape, const std::uint8_t* src, std::uint64_t base,
                  std::size_t element_bytes, std::uint8_t* dst);

}  // namespace treesim::program
