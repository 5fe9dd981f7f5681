// The program printer: one line per instruction, every field written as parse_program reads it
// back (parse_program(print_program(p)) == p).
#include <fmt/format.h>

#include "sim/program/program_text.h"
#include "sim/program/row_list.h"
#include "sim/program/window.h"
#include "sim/sparse/encoding.h"

namespace treesim::program {
namespace {

std::string join_i32(const std::vector<std::int32_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

const char* b(bool v) { return v ? "true" : "false"; }

struct Printer {
  const std::vector<std::string>& levels;
  std::string level(Level l) const {
    if (l.is_board()) return "board";
    return static_cast<std::size_t>(l.index) < levels.size() ? levels[static_cast<std::size_t>(l.index)]
                                                             : fmt::format("level{}", l.index);
  }
  static std::string block(const std::vector<std::uint64_t>& offset,
                           const std::vector<std::uint64_t>& shape) {
    if (offset.empty()) return "";
    return fmt::format(" offset={} shape={}", print_list(offset), print_list(shape));
  }
  std::string operator()(const Load& l) const {
    std::string pad = l.pad ? fmt::format(" pad={}", l.pad) : "";
    std::string window = l.window ? " window=" + window_text(*l.window) : "";
    if (l.halo) window += fmt::format(" halo={}", *l.halo);
    if (!l.view.empty()) window += " view=" + print_list(l.view);
    if (!l.rows.empty()) window += " rows=" + print_row_list(l.rows);
    return fmt::format("load tensor={} layout=\"{}\" lm={}{}{}{}", l.tensor, layout::to_string(l.layout),
                       l.lm, block(l.offset, l.shape), pad, window);
  }
  std::string operator()(const Store& s) const {
    return fmt::format("store tensor={} layout=\"{}\" lm={}{}{}", s.tensor, layout::to_string(s.layout), s.lm,
                       block(s.offset, s.shape), s.rows.empty() ? "" : " rows=" + print_row_list(s.rows));
  }
  std::string operator()(const Convert& c) const {
    std::string pad = c.pad ? fmt::format(" pad={}", c.pad) : "";
    std::string window;
    if (c.window) {
      window = block(c.offset, c.shape) + " window=" + window_text(*c.window);
      if (!c.view.empty()) window += " view=" + print_list(c.view);
    }
    return fmt::format("convert tensor={} from=\"{}\" src={} to=\"{}\" dst={}{}{}", c.tensor,
                       layout::to_string(c.from), c.src, layout::to_string(c.to), c.dst, pad, window);
  }
  std::string operator()(const Mac& m) const {
    return fmt::format("mac a={} b={} c={} m={} n={} k={} a_dtype={} b_dtype={} a_zero={} b_zero={} acc={}",
                       m.a, m.b, m.c, m.m, m.n, m.k, core::dtype_name(m.a_dtype), core::dtype_name(m.b_dtype),
                       m.a_zero, m.b_zero, b(m.accumulate));
  }
  std::string operator()(const DptDecode& d) const {
    std::string extra = d.cols != 1 ? fmt::format(" cols={}", d.cols) : "";
    if (d.codec != numeric::TernaryCodec::kDpt)
      extra += fmt::format(" codec={}", numeric::to_string(d.codec));
    return fmt::format("dpt_decode src={} dst={} bytes={}{}", d.src, d.dst, d.bytes, extra);
  }
  std::string operator()(const TernaryMac& m) const {
    return fmt::format("ternary_mac a={} w={} c={} m={} n={} k={} a_dtype={} a_zero={} acc={}", m.a, m.w, m.c,
                       m.m, m.n, m.k, core::dtype_name(m.a_dtype), m.a_zero, b(m.accumulate));
  }
  std::string operator()(const Requant& r) const {
    std::string bias = r.has_bias ? fmt::format(" bias={}", r.bias) : "";
    std::string params =
        r.params_in_lm ? fmt::format("multiplier_lm={} shift_lm={}", r.multiplier_lm, r.shift_lm)
                       : fmt::format("multiplier={} shift={}", join_i32(r.multiplier), join_i32(r.shift));
    return fmt::format(
        "requant src={} dst={} rows={} cols={}{} {} out_zero={} out_dtype={} act_min={} act_max={} "
        "rounding={}",
        r.src, r.dst, r.rows, r.cols, bias, params, r.out_zero, core::dtype_name(r.out_dtype), r.act_min,
        r.act_max, numeric::to_string(r.rounding));
  }
  std::string operator()(const SparseMac& s) const {
    return fmt::format(
        "sparse_mac encoding=\"{}\" a={} a_bytes={} b={} b_rows={} n={} b_zero={} c={} c_rows={}{} "
        "entries={} "
        "segments={}{}{}",
        sparse::print_encoding(s.encoding), s.a, s.a_bytes, s.b, s.b_rows, s.n, s.b_zero, s.c, s.c_rows,
        s.pes.empty() ? "" : " pes=" + print_list(s.pes), print_list(s.entries), print_list(s.segments),
        s.visits.empty() ? "" : " visits=" + print_list(s.visits), s.accumulate ? " acc=true" : "");
  }
  std::string operator()(const PoolMax& p) const {
    return fmt::format("pool_max src={} dst={} rows={} channels={} taps={} dtype={}", p.src, p.dst, p.rows,
                       p.channels, p.taps, core::dtype_name(p.dtype));
  }
  std::string operator()(const PoolSum& p) const {
    return fmt::format("pool_sum src={} dst={} rows={} channels={} taps={} dtype={} zero={}", p.src, p.dst,
                       p.rows, p.channels, p.taps, core::dtype_name(p.dtype), p.zero);
  }
  std::string operator()(const QuantAdd& q) const {
    const numeric::AddStage& s = q.stage;
    return fmt::format(
        "add a={} b={} dst={} count={} a_dtype={} b_dtype={} a_zero={} b_zero={} a_scale={} b_scale={} "
        "out_dtype={} out_zero={} act_min={} act_max={}",
        q.a, q.b, q.dst, q.count, core::dtype_name(s.a_dtype), core::dtype_name(s.b_dtype), s.a_zero,
        s.b_zero, s.a_scale, s.b_scale, core::dtype_name(s.out_dtype), s.out_zero, s.act_min, s.act_max);
  }
  std::string operator()(const Vector& v) const {
    std::string b;
    if (core::is_binary(v.op)) {
      switch (v.b_form) {
        case VectorOperand::kMatrix:
          b = fmt::format(" b={}", v.b);
          break;
        case VectorOperand::kPerRow:
          b = fmt::format(" b={} b_per=row", v.b);
          break;
        case VectorOperand::kPerCol:
          b = fmt::format(" b={} b_per=col", v.b);
          break;
        case VectorOperand::kImmediate:
          b = fmt::format(" imm={}", v.imm);  // the shortest text that reads back as the same float
          break;
      }
    }
    return fmt::format("vector op={} a={}{} dst={} rows={} cols={}", core::vector_op_name(v.op), v.a, b,
                       v.dst, v.rows, v.cols);
  }
  std::string operator()(const Copy& c) const {
    return fmt::format("copy src={} dst={} bytes={}", c.src, c.dst, c.bytes);
  }
  std::string operator()(const Broadcast& c) const {
    return fmt::format("broadcast level={} src={} dst={} bytes={}", level(c.level), c.src, c.dst, c.bytes);
  }
  std::string operator()(const Scatter& c) const {
    return fmt::format("scatter level={} src={} dst={} bytes={}", level(c.level), c.src, c.dst, c.bytes);
  }
  std::string operator()(const Gather& c) const {
    return fmt::format("gather level={} src={} dst={} bytes={}", level(c.level), c.src, c.dst, c.bytes);
  }
  std::string operator()(const Reduce& c) const {
    // op and dtype only when not the default (an int32 sum), so older programs print as they did.
    return fmt::format("reduce level={} src={} dst={} count={}{}{}", level(c.level), c.src, c.dst, c.count,
                       c.op == ReduceOp::kMax ? " op=max" : "",
                       c.dtype == DType::kInt32 ? "" : std::string(" dtype=") + core::dtype_name(c.dtype));
  }
};

}  // namespace

std::string print_list(const std::vector<std::uint64_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

std::string print_instr(const Instr& instr, const std::vector<std::string>& level_names) {
  return std::visit(Printer{level_names}, instr);
}

std::string print_program(const Program& p, const std::vector<std::string>& level_names) {
  std::string out = "# treesim program\n";
  for (const auto& t : p.tensors)
    out +=
        fmt::format("tensor {} shape={} dtype={}\n", t.name, print_list(t.shape), core::dtype_name(t.dtype));
  for (const auto& i : p.instrs) out += print_instr(i, level_names) + "\n";
  return out;
}

}  // namespace treesim::program
