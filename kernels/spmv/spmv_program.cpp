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

// Every PE's list padded to `per_pe` rows, PE after PE (the padding one run per PE).
program::RowList padded_rows(const std::vector<std::vector<std::uint64_t>>& lists, std::uint64_t per_pe) {
  program::RowList rows;
  for (const auto& l : lists) {
    for (std::uint64_t r : l) rows.add(r);
    rows.add_padding(per_pe - l.size());
  }
  return rows;
}

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
  for (std::uint64_t j = 0; j < s.passes; ++j) {
    // Pass j: row block k's column tile t. Its PEs' A blocks (their rows of A) and x rows go into
    // buffer j mod 2, the row block's bias into bias buffer k mod 2 with its first tile.
    const std::uint64_t k = j / s.col_tiles, t = j % s.col_tiles;
    const bool last_tile = t + 1 == s.col_tiles;
    const std::uint64_t buffer = (j % 2) * s.buffer_bytes,
                        bias_at = s.lm_bias + (k % 2) * s.bias_buffer_bytes;
    program::Load a;
    a.tensor = "A", a.layout = a_layout, a.lm = s.lm_a + buffer;
    std::vector<std::vector<std::uint64_t>> chunks(pes);
    for (std::uint64_t pe = 0; pe < pes; ++pe)
      for (std::uint64_t c = s.a_chunk_begin[j * pes + pe]; c < s.a_chunk_begin[j * pes + pe + 1]; ++c)
        chunks[pe].push_back(c);
    a.rows = padded_rows(chunks, s.block_bytes / kAChunk);
    prog.instrs.push_back(std::move(a));
    // x: each PE's columns (whole column groups past A's last column are padding, the zero point, so
    // their terms vanish).
    std::vector<std::vector<std::uint64_t>> cols(pes), rows(pes), outs(pes);
    for (std::uint64_t pe = 0; pe < pes; ++pe) {
      const PeShare& share = s.shares[j * pes + pe];
      for (std::uint64_t c : share.cols) cols[pe].push_back(c < p.a.cols ? c : program::kPadRow);
      for (std::uint64_t r = share.row_begin; r < share.row_end; ++r) rows[pe].push_back(r);
      // 2d: the reduce leaves the sums in each grid row's first PE.
      if (pe % s.grid_cols == 0) outs[pe] = rows[pe];
    }
    program::Load lx;
    lx.tensor = x, lx.layout = x_layout, lx.lm = s.lm_x + buffer;
    lx.pad = p.b_zero, lx.rows = padded_rows(cols, s.x_rows);
    prog.instrs.push_back(std::move(lx));
    if (!p.bias.empty() && t == 0 && (!p.spmm || k == 0)) {  // SpMM's bias is the same for every row
      program::Load lb;
      lb.tensor = "bias", lb.lm = bias_at;
      if (p.spmm) {
        lb.layout = layout::parse_layout_or_throw(fmt::format("(({}:1))", p.n), m);  // a copy in every PE
      } else {
        lb.layout = per_pe_rows_layout(s.c_rows, 1, m);
        lb.rows = padded_rows(rows, s.c_rows);
      }
      prog.instrs.push_back(std::move(lb));
    }
    program::SparseMac mac;
    mac.encoding = s.choice.encoding;
    mac.a = s.lm_a + buffer, mac.a_bytes = s.block_bytes;
    mac.b = s.lm_x + buffer, mac.b_rows = s.x_rows, mac.n = p.n, mac.b_zero = p.b_zero;
    mac.c = s.lm_c, mac.c_rows = s.c_rows;
    mac.accumulate = t > 0;
    for (std::uint64_t pe = 0; pe < pes; ++pe) {
      const PeShare& share = s.shares[j * pes + pe];
      mac.entries.push_back(share.work.entries);
      mac.segments.push_back(share.work.segments);
      mac.visits.insert(mac.visits.end(), share.work.visits.begin(), share.work.visits.end());
    }
    prog.instrs.push_back(std::move(mac));
    if (!last_tile) continue;
    if (s.reduce_level >= 0)
      prog.instrs.push_back(program::Reduce{{s.reduce_level}, s.lm_c, s.lm_sum, y_per_pe});
    program::Requant rq =
        requant_of_stage(p.out, s.lm_sum, s.lm_y, p.spmm ? s.c_rows : 1, p.spmm ? p.n : s.c_rows);
    if (!p.bias.empty()) rq.has_bias = true, rq.bias = bias_at;
    prog.instrs.push_back(rq);
    program::Store st;
    st.tensor = y, st.layout = c_layout, st.lm = s.lm_y;
    st.rows = padded_rows(outs, s.c_rows);
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
