#include "sim/program/checked_program.h"

#include <memory>
#include <type_traits>

#include <fmt/format.h>

#include "sim/core/checked.h"
#include "sim/layout/diagnostic.h"
#include "sim/program/instr_checker.h"

namespace treesim::program {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

// The ranges of a MAC (int8 or ternary): A, B (or W), and C in int32, read too when accumulating.
template <typename Op>
void check_mac(const Op& op, std::uint64_t b, InstrChecker& c, PreparedInstr& pi, std::uint64_t pes) {
  c.lm(pi.reads, op.a, {op.m, op.k});
  c.lm(pi.reads, b, {op.k, op.n});
  if (op.accumulate) c.lm(pi.reads, op.c, {op.m, op.n, 4});
  c.lm(pi.writes, op.c, {op.m, op.n, 4});
  if (!core::checked_product({op.m, op.n, op.k, pes})) c.fail("m·n·k over all PEs overflows 64 bits");
}

// A zero point is a code of its operand's type (as in quantization), so that q − Z always
// fits 9 bits, the width the MAC datapath is specified for.
bool zero_point_fits(std::int32_t zero, core::DType t, const char* field, InstrChecker& c) {
  if (zero >= core::dtype_min(t) && zero <= core::dtype_max(t)) return true;
  c.fail(fmt::format("{}={} is outside {}'s range [{}, {}]", field, zero, core::dtype_name(t),
                     core::dtype_min(t), core::dtype_max(t)));
  return false;
}

// A pad fills a tile's padding with a value of the tensor's type: one outside its range would be
// stored as its low bytes (pad=999 on int8 as -25).
bool pad_fits(std::int32_t pad, core::DType t, InstrChecker& c) {
  return !core::is_integer(t) || zero_point_fits(pad, t, "pad", c);
}

void check_requant(const Requant& r, InstrChecker& c, PreparedInstr& out) {
  if (!core::is_8bit(r.out_dtype)) return c.fail("out_dtype must be int8 or uint8");
  if (r.params_in_lm) return;  // checked per PE when it runs
  if (r.multiplier.size() != r.shift.size())
    return c.fail(fmt::format("{} multipliers but {} shifts", r.multiplier.size(), r.shift.size()));
  if (r.multiplier.size() != 1 && r.multiplier.size() != r.cols)
    return c.fail(fmt::format("{} multipliers: give 1 (per tensor) or cols = {} (per channel)",
                              r.multiplier.size(), r.cols));
  try {
    out.stage = output_stage(r, {});
    numeric::validate(*out.stage, r.cols);
  } catch (const numeric::QuantError& e) {
    out.stage.reset();
    c.fail(e.what());
  }
}

void check_convert(const Convert& op, InstrChecker& c, PreparedInstr& out) {
  // The tensor by each layout, as a store (from) and a load (to) of the whole tensor would bind it;
  // with a window, `to` as a windowed load of the block would (the view and the window checked so).
  struct Side {
    const std::string& tensor;
    const layout::TensorLayout& layout;
    std::vector<std::uint64_t> offset, shape;
  };
  std::optional<Transfer> from = c.transfer(Side{op.tensor, op.from, {}, {}}, false);
  if (!from) return;
  std::optional<Transfer> to = op.window ? c.transfer(Load{op.tensor,
                                                           op.to,
                                                           op.dst,
                                                           op.offset,
                                                           op.shape,
                                                           op.pad,
                                                           op.window,
                                                           std::nullopt,
                                                           op.view,
                                                           {}},
                                                      true, /*from_dram=*/false)
                                         : c.transfer(Side{op.tensor, op.to, {}, {}}, true);
  if (!to) return;
  if (!pad_fits(op.pad, c.program().tensors[from->tensor].dtype, c)) return;
  c.lm(out.reads, op.src, {from->footprint_bytes});
  c.lm(out.writes, op.dst, {to->footprint_bytes});
  if (c.failed()) return;
  if (!c.disjoint(op.src, from->footprint_bytes, op.dst, to->footprint_bytes,
                  "a conversion needs disjoint LM ranges"))
    return;
  layout::ConversionPlan plan = op.window ? window_conversion(to->window->window, to->window->tensor_shape,
                                                              to->block.offset, from->bound, to->bound)
                                          : layout::plan_conversion(from->bound, to->bound);
  out.conversion = Conversion{std::move(*from), std::move(*to), std::move(plan)};
}

template <typename Op>
void check_collective(const Op& op, std::uint64_t bytes, const machine::MachineConfig& m, InstrChecker& c,
                      PreparedInstr& out) {
  const int li = c.level(op.level);
  if (c.failed()) return;
  const std::uint64_t s = li < 0 ? m.pe_count() : m.pe_count() / m.units_at(static_cast<std::size_t>(li));
  constexpr bool kScatter = std::is_same_v<Op, Scatter>, kGather = std::is_same_v<Op, Gather>;
  c.lm(out.reads, op.src, {bytes, kScatter ? s : 1});
  c.lm(out.writes, op.dst, {bytes, kGather ? s : 1});
}

// The vector unit's instruction: the machine has the unit and prices the operation; a, b and dst lie
// in the LM, and dst is in place or apart from each input (a per-row or per-column b: apart).
void check_vector(const Vector& op, const machine::MachineConfig& m, InstrChecker& c, PreparedInstr& pi) {
  const char* name = core::vector_op_name(op.op);
  if (!m.pe.vector) return c.fail(fmt::format("machine '{}' has no vector unit (pe.vector)", m.name));
  if (!m.pe.vector->cost(op.op))
    return c.fail(fmt::format("machine '{}' does not price vector operation '{}' (pe.vector.ops.{})", m.name,
                              name, name));
  if (op.rows == 0 || op.cols == 0) return c.fail("rows and cols must be at least 1");
  c.lm(pi.reads, op.a, {op.rows, op.cols, 4});
  if (op.b_values()) c.lm(pi.reads, op.b, {op.b_values(), 4});
  c.lm(pi.writes, op.dst, {op.out_values(), 4});
  if (c.failed()) return;
  if (op.dst != op.a && !c.disjoint(op.a, op.values() * 4, op.dst, op.out_values() * 4,
                                    "the results must be in place or apart from a"))
    return;
  // A per-row or per-column b is read again for later rows: only a whole-matrix b may be overwritten.
  if (op.b_values() && (op.dst != op.b || op.b_form != VectorOperand::kMatrix))
    c.disjoint(op.b, op.b_values() * 4, op.dst, op.out_values() * 4,
               op.b_form == VectorOperand::kMatrix
                   ? "the results must be in place or apart from b"
                   : "a per-row or per-column b must be apart from the results");
}

}  // namespace

timing::Range dram_written(const Transfer& t, const TensorDecl& tensor) {
  const timing::Range whole{dram_space(t.tensor), 0, tensor.bytes()};
  // A row scatter's rows, or a block of a view, may lie anywhere in the tensor.
  if (t.rows || t.window || t.block.whole) return whole;
  const std::uint64_t n = t.block.elements(), bytes = core::dtype_bytes(tensor.dtype);
  if (n == 0) return whole;
  return {whole.space, t.block.full_index(0) * bytes, (t.block.full_index(n - 1) + 1) * bytes};
}

std::uint64_t Block::full_index(std::uint64_t i) const {
  if (whole) return i;
  std::uint64_t full = 0;
  for (std::size_t d = shape.size(); d-- > 0;) {
    full += (offset[d] + i % shape[d]) * tensor_strides[d];
    i /= shape[d];
  }
  return full;
}

std::uint64_t Block::elements() const {
  std::uint64_t n = 1;
  for (std::uint64_t d : shape) n *= d;
  return n;
}

numeric::OutputStage output_stage(const Requant& r, const std::vector<numeric::QuantizedMultiplier>& mults) {
  numeric::OutputStage s;
  s.multipliers = mults;
  if (mults.empty()) {
    s.multipliers.clear();
    for (std::size_t i = 0; i < r.multiplier.size(); ++i)
      s.multipliers.push_back({r.multiplier[i], r.shift[i]});
  }
  s.out_zero_point = r.out_zero;
  s.out_dtype = r.out_dtype;
  s.act_min = r.act_min;
  s.act_max = r.act_max;
  s.rounding = r.rounding;
  return s;
}

CheckedProgram check_program(const Program& p, const machine::MachineConfig& m) {
  CheckedProgram out;
  // Each tensor fits DRAM (so the sum of them cannot wrap before it is compared).
  std::uint64_t dram_total = 0;
  bool each_fits = true;
  for (const TensorDecl& t : p.tensors) {
    std::optional<std::uint64_t> bytes = core::checked_product({t.elements(), core::dtype_bytes(t.dtype)});
    if (t.elements() == UINT64_MAX || !bytes || *bytes > m.dram.bytes) {
      out.errors.push_back(
          {fmt::format("tensor {}", t.name),
           fmt::format("shape {} of {} does not fit the machine's {}-byte DRAM",
                       layout::shape_string(t.shape), core::dtype_name(t.dtype), m.dram.bytes)});
      each_fits = false;
      continue;
    }
    if (dram_total <= m.dram.bytes) dram_total += *bytes;
  }
  if (each_fits && dram_total > m.dram.bytes)
    out.errors.push_back(
        {"tensors", fmt::format("they need {} bytes together, more than the machine's {}-byte DRAM",
                                dram_total, m.dram.bytes)});
  const std::uint64_t pes = m.pe_count();
  out.instrs.resize(p.instrs.size());
  std::vector<BoundTransfer> bound_cache;
  std::vector<HaloEntry> halo_cache;
  for (std::size_t i = 0; i < p.instrs.size(); ++i) {
    PreparedInstr& pi = out.instrs[i];
    InstrChecker c(p, m, i, out.errors, bound_cache, halo_cache);
    std::visit(
        Overloaded{
            [&](const Load& op) {
              pi.transfer = c.transfer(op, true);
              if (!pi.transfer) return;
              const TensorDecl& t = p.tensors[pi.transfer->tensor];
              if (!pad_fits(op.pad, t.dtype, c)) return;
              pi.reads.push_back({dram_space(pi.transfer->tensor), 0, t.bytes()});
              c.lm(pi.writes, op.lm, {pi.transfer->footprint_bytes});
              if (op.halo) {  // the patches: scratch the slots are made from, apart from them
                const std::uint64_t patch = *pi.transfer->window->halo_patch_bytes;
                c.lm(pi.writes, *op.halo, {patch});
                c.disjoint(*op.halo, patch, op.lm, pi.transfer->footprint_bytes,
                           "the halo patches must not overlap the window slots");
              }
            },
            [&](const Store& op) {
              pi.transfer = c.transfer(op, false);
              if (!pi.transfer) return;
              const TensorDecl& t = p.tensors[pi.transfer->tensor];
              c.lm(pi.reads, op.lm, {pi.transfer->footprint_bytes});
              pi.writes.push_back(dram_written(*pi.transfer, t));
            },
            [&](const Mac& op) {
              if (!core::is_8bit(op.a_dtype) || !core::is_8bit(op.b_dtype))
                return c.fail("MAC operands must be int8 or uint8");
              if (!zero_point_fits(op.a_zero, op.a_dtype, "a_zero", c)) return;
              if (!zero_point_fits(op.b_zero, op.b_dtype, "b_zero", c)) return;
              check_mac(op, op.b, c, pi, pes);
            },
            [&](const TernaryMac& op) {
              if (!core::is_8bit(op.a_dtype)) return c.fail("the A operand must be int8 or uint8");
              if (!zero_point_fits(op.a_zero, op.a_dtype, "a_zero", c)) return;
              check_mac(op, op.w, c, pi, pes);
            },
            [&](const DptDecode& op) {
              if (op.codec == numeric::TernaryCodec::kBase243PreDiv)
                return c.fail("codec must be dpt, bct or base3");
              if (op.cols == 0 || op.bytes % op.cols != 0)
                return c.fail(
                    fmt::format("bytes={} is not a whole number of rows of cols={}", op.bytes, op.cols));
              c.lm(pi.reads, op.src, {op.bytes});
              c.lm(pi.writes, op.dst,
                   {op.bytes, static_cast<std::uint64_t>(numeric::trits_per_byte(op.codec))});
            },
            [&](const Requant& op) {
              check_requant(op, c, pi);
              c.lm(pi.reads, op.src, {op.rows, op.cols, 4});
              if (op.has_bias) c.lm(pi.reads, op.bias, {op.cols, 4});
              if (op.params_in_lm) {
                c.lm(pi.reads, op.multiplier_lm, {op.cols, 4});
                c.lm(pi.reads, op.shift_lm, {op.cols, 4});
              }
              c.lm(pi.writes, op.dst, {op.rows, op.cols});
            },
            [&](const SparseMac& op) {
              for (std::size_t i = 0; i < op.pes.size(); ++i)
                if (op.pes[i] >= pes || (i > 0 && op.pes[i] <= op.pes[i - 1]))
                  return c.fail(
                      fmt::format("pes must be increasing PE numbers below {}; got {} at position {}", pes,
                                  op.pes[i], i));
              const std::uint64_t walkers = op.walkers(pes);
              const char* per = op.pes.empty() ? "PE" : "listed PE";
              if (op.entries.size() != walkers || op.segments.size() != walkers)
                return c.fail(fmt::format("entries and segments have {} and {} numbers; give one per {} ({})",
                                          op.entries.size(), op.segments.size(), per, walkers));
              if (!op.visits.empty() && op.visits.size() != 4 * walkers)
                return c.fail(fmt::format("visits has {} numbers; give four per {} ({})", op.visits.size(),
                                          per, 4 * walkers));
              if (op.visits.empty() && m.pe.sparse_mac && m.pe.sparse_mac->charges_levels())
                return c.fail(
                    fmt::format("machine '{}' charges level steps (pe.sparse_mac.level_items); give "
                                "visits, four per PE",
                                m.name));
              if (op.n == 0) return c.fail("n must be at least 1");
              if (op.a_bytes == 0) return c.fail("a_bytes must be at least 1");
              if (!zero_point_fits(op.b_zero, core::DType::kInt8, "b_zero", c)) return;
              c.lm(pi.reads, op.a, {op.a_bytes});
              if (op.b_rows > 0) c.lm(pi.reads, op.b, {op.b_rows, op.n});
              if (op.c_rows > 0 && op.accumulate) c.lm(pi.reads, op.c, {op.c_rows, op.n, 4});
              if (op.c_rows > 0) c.lm(pi.writes, op.c, {op.c_rows, op.n, 4});
            },
            [&](const Convert& op) { check_convert(op, c, pi); },
            [&](const PoolMax& op) {
              if (!core::is_8bit(op.dtype)) return c.fail("dtype must be int8 or uint8");
              if (op.taps == 0) return c.fail("taps must be at least 1");
              c.lm(pi.reads, op.src, {op.rows, op.channels, op.taps});
              c.lm(pi.writes, op.dst, {op.rows, op.channels});
              if (c.failed()) return;
              c.disjoint(op.src, op.rows * op.channels * op.taps, op.dst, op.rows * op.channels,
                         "the window maxima must not overwrite the windows");
            },
            [&](const PoolSum& op) {
              if (!core::is_8bit(op.dtype)) return c.fail("dtype must be int8 or uint8");
              if (op.taps == 0) return c.fail("taps must be at least 1");
              if (op.taps > (std::uint64_t{1} << 23))
                return c.fail("taps must be at most 2^23 (the int32 sums must not overflow)");
              if (!zero_point_fits(op.zero, op.dtype, "zero", c)) return;
              c.lm(pi.reads, op.src, {op.rows, op.channels, op.taps});
              c.lm(pi.writes, op.dst, {op.rows, op.channels, 4});
              if (c.failed()) return;
              c.disjoint(op.src, op.rows * op.channels * op.taps, op.dst, op.rows * op.channels * 4,
                         "the window sums must not overwrite the windows");
            },
            [&](const QuantAdd& op) {
              if (std::string e = numeric::add_stage_error(op.stage); !e.empty()) return c.fail(e);
              c.lm(pi.reads, op.a, {op.count});
              c.lm(pi.reads, op.b, {op.count});
              c.lm(pi.writes, op.dst, {op.count});
              if (c.failed()) return;
              // In place is fine (each element reads its a and b before writing); a partial overlap is not.
              for (std::uint64_t in : {op.a, op.b})
                if (in != op.dst)
                  c.disjoint(in, op.count, op.dst, op.count,
                             "the sums must be in place or apart from a and b");
            },
            [&](const Vector& op) { check_vector(op, m, c, pi); },
            [&](const Copy& op) {
              c.lm(pi.reads, op.src, {op.bytes});
              c.lm(pi.writes, op.dst, {op.bytes});
            },
            [&](const Broadcast& op) { check_collective(op, op.bytes, m, c, pi); },
            [&](const Scatter& op) { check_collective(op, op.bytes, m, c, pi); },
            [&](const Gather& op) { check_collective(op, op.bytes, m, c, pi); },
            [&](const Reduce& op) {
              if (op.dtype != DType::kInt32 && op.dtype != DType::kFloat32)
                return c.fail("a reduce's dtype is int32 or float32");
              std::optional<std::uint64_t> bytes = core::checked_product({op.count, 4});
              if (!bytes) return c.fail("count·4 overflows 64 bits");
              check_collective(op, *bytes, m, c, pi);
            },
        },
        p.instrs[i]);
  }
  return out;
}

}  // namespace treesim::program
