// The sparse kernels' program and DRAM image: every PE's operands stand side by side in DRAM, one
// PE's part after another, so that one load places each part in its PE's LM.
#include <fmt/format.h>

#include <cstring>

#include "kernels/requant_of_stage.h"
#include "kernels/spmv/spmv.h"
#include "sim/layout/parse.h"
#include "sim/numeric/requant.h"

namespace treesim::kernels {
namespace {

// `per_pe` elements in each PE, contiguous from the instruction's LM offset, PE after PE (every
// level with more than one unit splits the tensor, root first: the PEs' order).
layout::TensorLayout per_pe_layout(std::uint64_t per_pe, const machine::MachineConfig& m) {
  std::string levels;
  for (const auto& l : m.levels)
    if (l.fanout > 1) levels += fmt::format("{}_{}, ", l.fanout, l.name);
  return layout::parse_layout_or_throw(fmt::format("(({}{}:1))", levels, per_pe), m);
}

void put_i32(std::uint8_t* at, std::int32_t v) { std::memcpy(at, &v, 4); }

}  // namespace

program::Program build_sparse_program(const SparseProblem& p, const SparsePlacement& s,
                                      const machine::MachineConfig& m) {
  program::Program prog;
  const std::uint64_t pes = s.pes, bias_count = p.spmm ? p.n : s.c_rows;
  const std::uint64_t x_per_pe = s.x_rows * p.n, y_per_pe = s.c_rows * p.n;
  prog.tensors = {{"A_pe", {pes * s.block_bytes}, core::DType::kUInt8},
                  {"X_pe", {pes * x_per_pe}, core::DType::kInt8},
                  {"Y_pe", {pes * y_per_pe}, core::DType::kInt8}};
  if (!p.bias.empty()) prog.tensors.push_back({"bias_pe", {pes * bias_count}, core::DType::kInt32});
  auto load = [&](const char* tensor, std::uint64_t per_pe, std::uint64_t lm) {
    program::Load l;
    l.tensor = tensor, l.layout = per_pe_layout(per_pe, m), l.lm = lm;
    prog.instrs.push_back(l);
  };
  load("A_pe", s.block_bytes, s.lm_a);
  load("X_pe", x_per_pe, s.lm_x);
  if (!p.bias.empty()) load("bias_pe", bias_count, s.lm_bias);
  program::SparseMac mac;
  mac.encoding = p.encoding;
  mac.a = s.lm_a, mac.a_bytes = s.block_bytes;
  mac.b = s.lm_x, mac.b_rows = s.x_rows, mac.n = p.n, mac.b_zero = p.b_zero;
  mac.c = s.lm_c, mac.c_rows = s.c_rows;
  for (const PeShare& share : s.shares) {
    mac.entries.push_back(share.work.entries);
    mac.segments.push_back(share.work.segments);
  }
  prog.instrs.push_back(std::move(mac));
  if (s.reduce_level >= 0)
    prog.instrs.push_back(program::Reduce{{s.reduce_level}, s.lm_c, s.lm_sum, y_per_pe});
  program::Requant rq =
      requant_of_stage(p.out, s.lm_sum, s.lm_y, p.spmm ? s.c_rows : 1, p.spmm ? p.n : s.c_rows);
  if (!p.bias.empty()) rq.has_bias = true, rq.bias = s.lm_bias;
  prog.instrs.push_back(rq);
  program::Store st;
  st.tensor = "Y_pe", st.layout = per_pe_layout(y_per_pe, m), st.lm = s.lm_y;
  prog.instrs.push_back(st);
  return prog;
}

std::map<std::string, std::vector<std::uint8_t>> sparse_inputs(const SparseProblem& p,
                                                               const SparsePlacement& s) {
  std::map<std::string, std::vector<std::uint8_t>> image;
  std::vector<std::uint8_t>& a = image["A_pe"];
  a.assign(s.pes * s.block_bytes, 0);
  std::vector<std::uint8_t>& x = image["X_pe"];
  const std::uint64_t x_per_pe = s.x_rows * p.n;
  // Unused rows hold the zero point: their terms would vanish.
  x.assign(s.pes * x_per_pe, static_cast<std::uint8_t>(p.b_zero));
  for (std::uint64_t pe = 0; pe < s.pes; ++pe) {
    const PeShare& share = s.shares[pe];
    const std::vector<std::uint8_t> block = sparse::pack_block(share.local);
    std::memcpy(a.data() + pe * s.block_bytes, block.data(), block.size());
    for (std::size_t j = 0; j < share.cols.size(); ++j)
      if (share.cols[j] < p.a.cols)
        std::memcpy(x.data() + pe * x_per_pe + j * p.n, p.b.data() + share.cols[j] * p.n, p.n);
  }
  if (!p.bias.empty()) {
    const std::uint64_t count = p.spmm ? p.n : s.c_rows;
    std::vector<std::uint8_t>& b = image["bias_pe"];
    b.assign(s.pes * count * 4, 0);
    for (std::uint64_t pe = 0; pe < s.pes; ++pe)
      for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t row = s.shares[pe].row_begin + i;
        const std::int32_t v = p.spmm ? p.bias[i] : (row < s.shares[pe].row_end ? p.bias[row] : 0);
        put_i32(b.data() + (pe * count + i) * 4, v);
      }
  }
  return image;
}

std::vector<std::uint8_t> collect_rows(const SparseProblem& p, const SparsePlacement& s,
                                       const std::vector<std::uint8_t>& y_pe) {
  std::vector<std::uint8_t> y(p.a.rows * p.n, 0);
  const std::uint64_t y_per_pe = s.c_rows * p.n;
  for (std::uint64_t pe = 0; pe < s.pes; pe += s.grid_cols) {
    const PeShare& share = s.shares[pe];
    for (std::uint64_t r = share.row_begin; r < share.row_end; ++r)
      std::memcpy(y.data() + r * p.n, y_pe.data() + pe * y_per_pe + (r - share.row_begin) * p.n, p.n);
  }
  return y;
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
