// The sparse kernels' program and DRAM image. A's shares stand packed in DRAM in kAChunk-byte rows,
// and a row gather sends each PE its own; x (or B), the bias and y (or C) are in DRAM once, as the
// user gives and takes them, and move by row gathers and scatters too: each PE receives the x rows
// of its columns and the bias of its rows through the tree (each unit its subtree's distinct rows,
// once), and sends its output rows up to their places. Pass by pass when the shares take several.
#include <fmt/format.h>

#include <cstring>

#include "kernels/requant_of_stage.h"
#include "kernels/spmv/spmv.h"
#include "sim/layout/parse.h"
#include "sim/numeric/requant.h"
#include "sim/program/row_list.h"

namespace treesim::kernels {
namespace {

// The levels with more than one unit, root first, as layout sub-axes ("2_L1B, 4_MAB, 4_PE, "): the
// PEs' order.
std::string pe_axes(const machine::MachineConfig& m) {
  std::string levels;
  for (const auto& l : m.levels)
    if (l.fanout > 1) levels += fmt::format("{}_{}, ", l.fanout, l.name);
  return levels;
}

// A [P·rows, cols] block: `rows` rows of `cols` in each PE, row-major from the LM offset.
layout::TensorLayout per_pe_rows_layout(std::uint64_t rows, std::uint64_t cols,
                                        const machine::MachineConfig& m) {
  return layout::parse_layout_or_throw(fmt::format("(({}{}:{}), ({}:1))", pe_axes(m), rows, cols, cols), m);
}

// Appends PE after PE's rows, each list followed by gaps up to `per_pe` rows, and `per_pe` gaps for
// a PE without a list this pass: rows the load leaves as they are (a PE's walk reads its own only).
class PerPeRows {
 public:
  // `runs`: about as many runs as the lists will have (each PE's rows and its gaps), reserved.
  PerPeRows(std::uint64_t per_pe, std::size_t runs) : per_pe_(per_pe) { rows_.reserve(runs); }
  // PE `pe`'s rows (PEs in increasing order); `row(k)` gives its k-th of `count`.
  template <typename Row>
  void add(std::uint64_t pe, std::uint64_t count, Row&& row) {
    skip_to(pe);
    for (std::uint64_t k = 0; k < count; ++k) rows_.add(row(k));
    rows_.add_gap(per_pe_ - count);
  }
  // PE `pe`'s rows first, first + 1, ..., `count` of them.
  void add_run(std::uint64_t pe, std::uint64_t first, std::uint64_t count) {
    skip_to(pe);
    rows_.add_run(first, count);
    rows_.add_gap(per_pe_ - count);
  }
  program::RowList take(std::uint64_t pes) {
    rows_.add_gap((pes - next_) * per_pe_);
    return std::move(rows_);
  }

 private:
  void skip_to(std::uint64_t pe) {  // gaps for the PEs before `pe` without rows
    rows_.add_gap((pe - next_) * per_pe_);
    next_ = pe + 1;
  }
  std::uint64_t per_pe_, next_ = 0;
  program::RowList rows_;
};

}  // namespace

std::string sparse_x_name(const SparseProblem& p) { return p.spmm ? "B" : "x"; }
std::string sparse_y_name(const SparseProblem& p) { return p.spmm ? "C" : "y"; }

program::Program build_sparse_program(const SparseProblem& p, const SparsePlacement& s,
                                      const machine::MachineConfig& m) {
  program::Program prog;
  const std::uint64_t pes = s.pes;
  const std::string x = sparse_x_name(p), y = sparse_y_name(p);
  prog.tensors = {{"A", {s.a_chunk_begin.back(), kAChunk}, core::DType::kUInt8},
                  {x, {p.a.cols, p.n}, core::DType::kInt8},
                  {y, {p.a.rows, p.n}, core::DType::kInt8}};
  if (!p.bias.empty())
    prog.tensors.push_back(
        {"bias", p.spmm ? std::vector<std::uint64_t>{p.n} : std::vector<std::uint64_t>{p.a.rows, 1},
         core::DType::kInt32});
  const layout::TensorLayout a_layout = per_pe_rows_layout(s.block_bytes / kAChunk, kAChunk, m);
  const layout::TensorLayout x_layout = per_pe_rows_layout(s.x_rows, p.n, m);
  const layout::TensorLayout c_layout = per_pe_rows_layout(s.c_rows, p.n, m);
  const std::uint64_t y_per_pe = s.c_rows * p.n;
  std::uint64_t k = 0, t = 0;  // pass j: row block k's pass t
  for (std::uint64_t j = 0; j < s.passes; ++j, ++t) {
    if (t == s.block_passes[k]) ++k, t = 0;
    // Its PEs' A blocks and x rows go into buffer j mod 2, the row block's bias into bias buffer
    // k mod 2 with its first pass.
    const bool last = t + 1 == s.block_passes[k];
    const std::uint64_t buffer = (j % 2) * s.buffer_bytes,
                        bias_at = s.lm_bias + (k % 2) * s.bias_buffer_bytes;
    const std::uint64_t first = s.share_begin[j], end = s.share_begin[j + 1];
    std::size_t x_runs = 1;
    for (std::uint64_t i = first; i < end; ++i) x_runs += s.shares[i].cols.size() + 2;
    PerPeRows a_rows(s.block_bytes / kAChunk, 3 * (end - first) + 1), x_rows(s.x_rows, x_runs);
    for (std::uint64_t i = first; i < end; ++i) {
      const PeShare& share = s.shares[i];
      a_rows.add_run(share.pe, s.a_chunk_begin[i], s.a_chunk_begin[i + 1] - s.a_chunk_begin[i]);
      // x: the PE's columns (whole column groups past A's last column are padding, the zero point,
      // so their terms vanish).
      x_rows.add(share.pe, share.cols.size(), [&](std::uint64_t c) {
        return share.cols[c] < p.a.cols ? share.cols[c] : program::kPadRow;
      });
    }
    program::Load a;
    a.tensor = "A", a.layout = a_layout, a.lm = s.lm_a + buffer;
    a.rows = a_rows.take(pes);
    prog.instrs.push_back(std::move(a));
    program::Load lx;
    lx.tensor = x, lx.layout = x_layout, lx.lm = s.lm_x + buffer;
    lx.pad = p.b_zero, lx.rows = x_rows.take(pes);
    prog.instrs.push_back(std::move(lx));
    if (!p.bias.empty() && t == 0 && (!p.spmm || k == 0)) {  // SpMM's bias is the same for every row
      program::Load lb;
      lb.tensor = "bias", lb.lm = bias_at;
      if (p.spmm) {
        lb.layout = layout::parse_layout_or_throw(fmt::format("(({}:1))", p.n), m);  // a copy in every PE
      } else {
        lb.layout = per_pe_rows_layout(s.c_rows, 1, m);
        PerPeRows rows(s.c_rows, 3 * (end - first) + 1);
        for (std::uint64_t i = first; i < end; ++i)
          rows.add_run(s.shares[i].pe, s.shares[i].row_begin, s.shares[i].row_end - s.shares[i].row_begin);
        lb.rows = rows.take(pes);
      }
      prog.instrs.push_back(std::move(lb));
    }
    program::SparseMac mac;
    mac.encoding = s.choice.encoding;
    mac.a = s.lm_a + buffer, mac.a_bytes = s.block_bytes;
    mac.b = s.lm_x + buffer, mac.b_rows = s.x_rows, mac.n = p.n, mac.b_zero = p.b_zero;
    mac.c = s.lm_c, mac.c_rows = s.c_rows;
    mac.accumulate = t > 0;
    for (std::uint64_t i = first; i < end; ++i) {
      const PeShare& share = s.shares[i];
      if (end - first < pes) mac.pes.push_back(share.pe);
      mac.entries.push_back(share.work.entries);
      mac.segments.push_back(share.work.segments);
      mac.visits.insert(mac.visits.end(), share.work.visits.begin(), share.work.visits.end());
    }
    prog.instrs.push_back(std::move(mac));
    if (!last) continue;
    if (s.reduce_level >= 0)
      prog.instrs.push_back(program::Reduce{{s.reduce_level}, s.lm_c, s.lm_sum, y_per_pe});
    program::Requant rq =
        requant_of_stage(p.out, s.lm_sum, s.lm_y, p.spmm ? s.c_rows : 1, p.spmm ? p.n : s.c_rows);
    if (!p.bias.empty()) rq.has_bias = true, rq.bias = bias_at;
    prog.instrs.push_back(rq);
    // The row block's first pass has every PE's share, with its rows; with 2d the reduce leaves the
    // sums in each grid row's first PE.
    program::Store st;
    st.tensor = y, st.layout = c_layout, st.lm = s.lm_y;
    PerPeRows outs(s.c_rows, 3 * (s.share_begin[j - t + 1] - s.share_begin[j - t]) + 1);
    for (std::uint64_t i = s.share_begin[j - t]; i < s.share_begin[j - t + 1]; ++i)
      if (s.shares[i].pe % s.grid_cols == 0)
        outs.add_run(s.shares[i].pe, s.shares[i].row_begin, s.shares[i].row_end - s.shares[i].row_begin);
    st.rows = outs.take(pes);
    prog.instrs.push_back(std::move(st));
  }
  return prog;
}

std::map<std::string, std::vector<std::uint8_t>> sparse_inputs(const SparseProblem& p,
                                                               const SparsePlacement& s) {
  std::map<std::string, std::vector<std::uint8_t>> image;
  std::vector<std::uint8_t>& a = image["A"];
  a.assign(s.a_chunk_begin.back() * kAChunk, 0);
  for (std::size_t i = 0; i < s.shares.size(); ++i) {
    const std::vector<std::uint8_t> block = sparse::pack_block(s.shares[i].local);
    std::memcpy(a.data() + s.a_chunk_begin[i] * kAChunk, block.data(), block.size());
  }
  image[sparse_x_name(p)].assign(reinterpret_cast<const std::uint8_t*>(p.b.data()),
                                 reinterpret_cast<const std::uint8_t*>(p.b.data()) + p.b.size());
  if (!p.bias.empty()) {
    std::vector<std::uint8_t>& b = image["bias"];
    b.resize(p.bias.size() * 4);
    std::memcpy(b.data(), p.bias.data(), b.size());
  }
  return image;
}

std::vector<std::uint8_t> sparse_reference(const SparseProblem& p) {
  // int64 sums over the triples, then the int32 the PE's adders hold (modulo 2^32), plus the bias.
  std::vector<std::int64_t> acc(p.a.rows * p.n, 0);
  for (const sparse::Triple& t : p.a.entries)
    for (std::uint64_t j = 0; j < p.n; ++j)
      acc[t.row * p.n + j] +=
          static_cast<std::int64_t>(t.value) * (static_cast<std::int64_t>(p.b[t.col * p.n + j]) - p.b_zero);
  std::vector<std::uint8_t> y(acc.size());
  for (std::uint64_t r = 0; r < p.a.rows; ++r)
    for (std::uint64_t j = 0; j < p.n; ++j) {
      std::uint32_t v = static_cast<std::uint32_t>(static_cast<std::uint64_t>(acc[r * p.n + j]));
      if (!p.bias.empty()) v += static_cast<std::uint32_t>(p.spmm ? p.bias[j] : p.bias[r]);
      y[r * p.n + j] = static_cast<std::uint8_t>(numeric::requantize(static_cast<std::int32_t>(v), p.out, 0));
    }
  return y;
}

}  // namespace treesim::kernels
