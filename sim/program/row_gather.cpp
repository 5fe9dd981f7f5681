#include "sim/program/row_gather.h"

#include <algorithm>
#include <cstring>

#include "sim/program/row_list.h"

namespace treesim::program {
namespace {

// The tensor elements of block rows [r0, r0 + rn) × columns [c0, c0 + cn), padding rows left out,
// as one run per row.
void add_runs(const std::vector<std::uint64_t>& rows, std::uint64_t row_elements,
              const std::vector<std::uint64_t>& offset, std::uint64_t r0, std::uint64_t rn, std::uint64_t c0,
              std::uint64_t cn, std::vector<ElementRun>& out) {
  for (std::uint64_t r = r0; r < r0 + rn; ++r) {
    const std::uint64_t row = rows[offset[0] + r];
    if (row != kPadRow && cn > 0) out.push_back({row * row_elements + offset[1] + c0, cn});
  }
}

}  // namespace

std::vector<ElementRun> row_runs(const std::vector<std::uint64_t>& rows, std::uint64_t row_elements,
                                 const std::vector<std::uint64_t>& offset,
                                 const std::vector<std::uint64_t>& shape) {
  // The distinct rows (marked, or sorted when sparse in their range), each a run of the block's columns;
  // whole rows that follow each other make one run.
  std::vector<std::uint64_t> distinct;
  distinct.reserve(shape[0]);
  for (std::uint64_t r = 0; r < shape[0]; ++r)
    if (rows[offset[0] + r] != kPadRow) distinct.push_back(rows[offset[0] + r]);
  std::vector<std::uint8_t> seen;
  const std::vector<ElementRun> row_sets = distinct_runs(distinct, seen);
  std::vector<ElementRun> runs;
  if (shape[1] == 0) return runs;
  for (const ElementRun& set : row_sets) {
    if (shape[1] == row_elements) {
      runs.push_back({set.first * row_elements, set.count * row_elements});
      continue;
    }
    for (std::uint64_t row = set.first; row < set.first + set.count; ++row)
      runs.push_back({row * row_elements + offset[1], shape[1]});
  }
  return runs;
}

HaloTraffic row_gather_traffic(const std::vector<std::uint64_t>& rows, std::uint64_t row_elements,
                               const std::vector<std::uint64_t>& offset, const layout::BoundLayout& b) {
  std::vector<std::vector<ElementRun>> needs(b.pe_count());
  std::vector<ElementRun> runs;
  for_each_used_pe(b, [&](std::uint64_t pe, const layout::UnitView& v) {
    runs.clear();
    for (auto [r0, rn] : held_intervals(v.axes[0], b.shape()[0]))
      for (auto [c0, cn] : held_intervals(v.axes[1], b.shape()[1]))
        add_runs(rows, row_elements, offset, r0, rn, c0, cn, runs);
    needs[pe] = merge_runs(runs);
  });
  return needs_traffic(std::move(needs), b);
}

RowScatterTraffic row_scatter_traffic(const std::vector<std::uint64_t>& rows, std::uint64_t row_elements,
                                      const std::vector<std::uint64_t>& offset,
                                      const layout::BoundLayout& b) {
  const std::size_t levels = b.level_count();
  const std::uint64_t eb = b.element_bytes();
  // sends[l][u]: the elements unit u of level l sends up (its PEs' replica-0 non-padding elements).
  std::vector<std::vector<std::uint64_t>> sends(levels);
  sends[levels - 1].assign(b.pe_count(), 0);
  std::vector<ElementRun> runs;
  for_each_used_pe(b, [&](std::uint64_t pe, const layout::UnitView& v) {
    if (v.replica != 0) return;
    runs.clear();
    for (auto [r0, rn] : held_intervals(v.axes[0], b.shape()[0]))
      for (auto [c0, cn] : held_intervals(v.axes[1], b.shape()[1]))
        add_runs(rows, row_elements, offset, r0, rn, c0, cn, runs);
    for (const ElementRun& r : runs) sends[levels - 1][pe] += r.count;
  });
  for (std::size_t l = levels - 1; l-- > 0;) {
    const std::uint64_t f = b.fanout(l + 1);
    sends[l].assign(sends[l + 1].size() / f, 0);
    for (std::uint64_t u = 0; u < sends[l + 1].size(); ++u) sends[l][u / f] += sends[l + 1][u];
  }
  RowScatterTraffic out;
  out.plan.levels.resize(levels);
  out.ports.resize(levels);
  for (std::uint64_t n : sends[0]) out.plan.dram_write_bytes += n * eb;
  for (std::size_t x = 0; x < levels; ++x) {
    layout::LevelTraffic& t = out.plan.levels[x];
    const std::uint64_t f = b.fanout(x);
    for (std::uint64_t u = 0; u < sends[x].size(); ++u) {
      t.up_sent_bytes += sends[x][u] * eb;
      if (sends[x][u] > 0) ++out.plan.transfers;
    }
    t.up_delivered_bytes = t.up_sent_bytes;
    for (std::uint64_t p = 0; p * f < sends[x].size(); ++p) {
      std::uint64_t bytes = 0;
      for (std::uint64_t c = 0; c < f; ++c) bytes += sends[x][p * f + c] * eb;
      if (bytes == 0) continue;
      t.busiest_up_port_bytes = std::max(t.busiest_up_port_bytes, bytes);
      out.ports[x].push_back({p, bytes});
    }
  }
  return out;
}

void gather_rows(const std::vector<std::uint64_t>& rows, std::uint64_t row_elements,
                 const std::vector<std::uint64_t>& offset, const std::vector<std::uint64_t>& shape,
                 const std::uint8_t* src, std::uint64_t base, std::size_t eb, std::int32_t pad,
                 std::uint8_t* dst) {
  std::uint8_t pad_bytes[4];
  for (std::size_t i = 0; i < 4; ++i)
    pad_bytes[i] = static_cast<std::uint8_t>(static_cast<std::uint32_t>(pad) >> (8 * i));
  const std::uint64_t width = shape[1] * eb;
  for (std::uint64_t r = 0; r < shape[0]; ++r, dst += width) {
    const std::uint64_t row = rows[offset[0] + r];
    if (row == kPadRow) {
      for (std::uint64_t c = 0; c < shape[1]; ++c) std::memcpy(dst + c * eb, pad_bytes, eb);
      continue;
    }
    std::memcpy(dst, src + (row * row_elements + offset[1] - base) * eb, width);
  }
}

void scatter_rows(const std::vector<std::uint64_t>& rows, std::uint64_t row_elements,
                  const std::vector<std::uint64_t>& offset, const std::vector<std::uint64_t>& shape,
                  const std::uint8_t* src, std::uint64_t base, std::size_t eb, std::uint8_t* dst) {
  const std::uint64_t width = shape[1] * eb;
  for (std::uint64_t r = 0; r < shape[0]; ++r, src += width) {
    const std::uint64_t row = rows[offset[0] + r];
    if (row != kPadRow) std::memcpy(dst + (row * row_elements + offset[1] - base) * eb, src, width);
  }
}

}  // namespace treesim::program
