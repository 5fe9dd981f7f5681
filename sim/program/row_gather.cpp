#include "sim/program/row_gather.h"

#include <algorithm>
#include <cstring>

#include "sim/program/row_list.h"

namespace treesim::program {
namespace {

// The tensor elements of block rows [r0, r0 + rn) × columns [c0, c0 + cn), padding rows left out:
// one run per run of whole rows, else one per row.
void add_runs(const RowList& rows, std::uint64_t row_elements, const std::vector<std::uint64_t>& offset,
              std::uint64_t r0, std::uint64_t rn, std::uint64_t c0, std::uint64_t cn,
              std::vector<ElementRun>& out) {
  if (cn == 0) return;
  const bool whole = offset[1] + c0 == 0 && cn == row_elements;
  rows.for_each(offset[0] + r0, rn, [&](std::uint64_t, const RowRun& r) {
    if (r.padding()) return;
    if (whole) {
      out.push_back({r.first * row_elements, r.count * row_elements});
      return;
    }
    for (std::uint64_t row = r.first; row < r.first + r.count; ++row)
      out.push_back({row * row_elements + offset[1] + c0, cn});
  });
}

}  // namespace

std::vector<ElementRun> row_runs(const RowList& rows, std::uint64_t row_elements,
                                 const std::vector<std::uint64_t>& offset,
                                 const std::vector<std::uint64_t>& shape) {
  // The distinct rows: the block's runs of rows, ordered and merged (as runs of row numbers); each
  // row then a run of the block's columns (whole rows that follow each other, one run).
  std::vector<ElementRun> sets;
  sets.reserve(std::min<std::uint64_t>(rows.run_count(), shape[0]));  // grown once: millions for x
  rows.for_each(offset[0], shape[0], [&](std::uint64_t, const RowRun& r) {
    if (!r.padding()) sets.push_back({r.first, r.count});
  });
  std::vector<ElementRun> distinct = merge_runs(sets);
  if (shape[1] == 0) return {};
  if (shape[1] == row_elements) {  // whole rows: a set of rows is a run of elements
    for (ElementRun& set : distinct) set = {set.first * row_elements, set.count * row_elements};
    return distinct;
  }
  std::uint64_t count = 0;
  for (const ElementRun& set : distinct) count += set.count;
  std::vector<ElementRun> runs;
  runs.reserve(count);
  for (const ElementRun& set : distinct) {
    for (std::uint64_t row = set.first; row < set.first + set.count; ++row)
      runs.push_back({row * row_elements + offset[1], shape[1]});
  }
  return runs;
}

std::vector<HeldBlock> held_blocks(const layout::BoundLayout& b) {
  std::vector<HeldBlock> out;
  for_each_used_pe(b, [&](std::uint64_t pe, const layout::UnitView& v) {
    out.push_back(
        {pe, v.replica, held_intervals(v.axes[0], b.shape()[0]), held_intervals(v.axes[1], b.shape()[1])});
  });
  return out;
}

HaloTraffic row_gather_traffic(const RowList& rows, std::uint64_t row_elements,
                               const std::vector<std::uint64_t>& offset, const layout::BoundLayout& b) {
  return row_gather_traffic(rows, row_elements, offset, b, held_blocks(b));
}

HaloTraffic row_gather_traffic(const RowList& rows, std::uint64_t row_elements,
                               const std::vector<std::uint64_t>& offset, const layout::BoundLayout& b,
                               const std::vector<HeldBlock>& held) {
  std::vector<std::vector<ElementRun>> needs(b.pe_count());
  std::vector<ElementRun> runs;
  for (const HeldBlock& h : held) {
    runs.clear();
    for (auto [r0, rn] : h.rows)
      for (auto [c0, cn] : h.cols) add_runs(rows, row_elements, offset, r0, rn, c0, cn, runs);
    needs[h.pe] = merge_runs(runs);
  }
  return needs_traffic(std::move(needs), b);
}

RowScatterTraffic row_scatter_traffic(const RowList& rows, std::uint64_t row_elements,
                                      const std::vector<std::uint64_t>& offset,
                                      const layout::BoundLayout& b) {
  return row_scatter_traffic(rows, row_elements, offset, b, held_blocks(b));
}

RowScatterTraffic row_scatter_traffic(const RowList& rows, std::uint64_t row_elements,
                                      const std::vector<std::uint64_t>& offset, const layout::BoundLayout& b,
                                      const std::vector<HeldBlock>& held) {
  const std::size_t levels = b.level_count();
  const std::uint64_t eb = b.element_bytes();
  // sends[l][u]: the elements unit u of level l sends up (its PEs' replica-0 non-padding elements).
  std::vector<std::vector<std::uint64_t>> sends(levels);
  sends[levels - 1].assign(b.pe_count(), 0);
  std::vector<ElementRun> runs;
  for (const HeldBlock& h : held) {
    if (h.replica != 0) continue;
    runs.clear();
    for (auto [r0, rn] : h.rows)
      for (auto [c0, cn] : h.cols) add_runs(rows, row_elements, offset, r0, rn, c0, cn, runs);
    for (const ElementRun& r : runs) sends[levels - 1][h.pe] += r.count;
  }
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

void gather_rows(const RowList& rows, std::uint64_t row_elements, const std::vector<std::uint64_t>& offset,
                 const std::vector<std::uint64_t>& shape, const std::uint8_t* src, std::uint64_t base,
                 std::size_t eb, std::int32_t pad, std::uint8_t* dst) {
  std::uint8_t pad_bytes[4];
  for (std::size_t i = 0; i < 4; ++i)
    pad_bytes[i] = static_cast<std::uint8_t>(static_cast<std::uint32_t>(pad) >> (8 * i));
  const std::uint64_t width = shape[1] * eb;
  const bool whole = shape[1] == row_elements;  // then a run of rows is one block of bytes
  rows.for_each(offset[0], shape[0], [&](std::uint64_t at, const RowRun& r) {
    std::uint8_t* out = dst + (at - offset[0]) * width;
    if (r.gap()) return;
    if (r.padding()) {
      for (std::uint64_t c = 0; c < r.count * shape[1]; ++c) std::memcpy(out + c * eb, pad_bytes, eb);
    } else if (whole) {
      std::memcpy(out, src + (r.first * row_elements - base) * eb, r.count * width);
    } else {
      for (std::uint64_t k = 0; k < r.count; ++k)
        std::memcpy(out + k * width, src + ((r.first + k) * row_elements + offset[1] - base) * eb, width);
    }
  });
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> gap_elements(const RowList& rows,
                                                                  const std::vector<std::uint64_t>& offset,
                                                                  const std::vector<std::uint64_t>& shape) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
  rows.for_each(offset[0], shape[0], [&](std::uint64_t at, const RowRun& r) {
    if (r.gap()) out.emplace_back((at - offset[0]) * shape[1], (at - offset[0] + r.count) * shape[1]);
  });
  return out;
}

void scatter_rows(const RowList& rows, std::uint64_t row_elements, const std::vector<std::uint64_t>& offset,
                  const std::vector<std::uint64_t>& shape, const std::uint8_t* src, std::uint64_t base,
                  std::size_t eb, std::uint8_t* dst) {
  const std::uint64_t width = shape[1] * eb;
  const bool whole = shape[1] == row_elements;
  rows.for_each(offset[0], shape[0], [&](std::uint64_t at, const RowRun& r) {
    if (r.padding()) return;
    const std::uint8_t* in = src + (at - offset[0]) * width;
    if (whole) {
      std::memcpy(dst + (r.first * row_elements - base) * eb, in, r.count * width);
      return;
    }
    for (std::uint64_t k = 0; k < r.count; ++k)
      std::memcpy(dst + ((r.first + k) * row_elements + offset[1] - base) * eb, in + k * width, width);
  });
}

}  // namespace treesim::program
