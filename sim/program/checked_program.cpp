#include "sim/program/checked_program.h"

#include <memory>
#include <type_traits>

#include <fmt/format.h>

#include "sim/core/checked.h"
#include "sim/layout/diagnostic.h"
#include "sim/program/row_gather.h"
#include "sim/program/row_list.h"
#include "sim/program/window_convert.h"

namespace treesim::program {
namespace {

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

// A layout bound to a block shape, with what follows from it alone. Programs stream many blocks
// through a few layouts (a GEMM's tiles): each distinct one is bound and planned once.
struct BoundTransfer {
  layout::TensorLayout layout;
  std::vector<std::uint64_t> shape;
  std::size_t element_bytes = 0;
  bool load = true;
  layout::BoundLayout bound;
  std::uint64_t footprint_bytes = 0;
  layout::TrafficPlan plan;
  layout::PortTraffic ports;
  std::shared_ptr<const std::vector<HeldBlock>> held;  // a row gather's or scatter's, once asked for
};

// A halo load's traffic (halo.h) for a layout, block and window. Blocks that differ by whole images
// (their first rows equal modulo the pixels of an image) read the same elements shifted by whole
// images: the same traffic, worked out once.
struct HaloEntry {
  layout::TensorLayout layout;
  std::vector<std::uint64_t> shape, tensor;
  std::size_t element_bytes = 0;
  Window window;
  std::uint64_t first_row_in_image = 0, first_col = 0;
  HaloTraffic traffic;
};

// Checks one instruction; records errors through fail() and fills `out`.
class InstrChecker {
 public:
  InstrChecker(const Program& p, const machine::MachineConfig& m, std::size_t index, core::Errors& errors,
               std::vector<BoundTransfer>& bound_cache, std::vector<HaloEntry>& halo_cache)
      : p_(p), m_(m), index_(index), errors_(errors), bound_cache_(bound_cache), halo_cache_(halo_cache) {}

  bool failed() const { return failed_; }

  void fail(const std::string& what) {
    if (failed_) return;  // one error per instruction: later ones follow from the first
    failed_ = true;
    errors_.push_back({fmt::format("instruction {} ({})", index_, kind_name(p_.instrs[index_])), what});
  }

  // An LM range [lo, lo + a·b·c) that must lie inside the LM.
  void lm(std::vector<timing::Range>& list, std::uint64_t lo, std::initializer_list<std::uint64_t> size) {
    std::optional<std::uint64_t> bytes = core::checked_product(size);
    if (!bytes || lo > UINT64_MAX - *bytes)
      return fail(fmt::format("LM range at {} of {} bytes overflows 64 bits", lo,
                              bytes ? fmt::to_string(*bytes) : std::string("more than 2^64")));
    if (lo + *bytes > m_.lm_bytes())
      return fail(fmt::format("LM range [{}, {}) is outside the {}-byte LM", lo, lo + *bytes, m_.lm_bytes()));
    list.push_back(timing::Range{kLmSpace, lo, lo + *bytes});
  }

  // LM ranges [src, src + in) and [dst, dst + out) that an instruction needs apart (`what` says why).
  bool disjoint(std::uint64_t src, std::uint64_t in, std::uint64_t dst, std::uint64_t out, const char* what) {
    if (src < dst + out && dst < src + in) {
      fail(fmt::format("src [{}, {}) and dst [{}, {}) overlap: {}", src, src + in, dst, dst + out, what));
      return false;
    }
    return true;
  }

  std::optional<std::size_t> tensor(const std::string& name) {
    for (std::size_t i = 0; i < p_.tensors.size(); ++i)
      if (p_.tensors[i].name == name) return i;
    fail(fmt::format("tensor '{}' is not declared", name));
    return std::nullopt;
  }

  int level(Level l) {
    if (l.is_board()) return Level::kBoard;
    if (l.index < 0 || static_cast<std::size_t>(l.index) >= m_.levels.size()) {
      fail(fmt::format("level {} is not a level of machine '{}'", l.index, m_.name));
      return Level::kBoard;
    }
    if (static_cast<std::size_t>(l.index) + 1 == m_.levels.size())
      fail(fmt::format("a collective needs a level above the PE, got '{}'", m_.levels.back().name));
    return l.index;
  }

  // `from_dram` false: the block's elements come from the LMs (a windowed convert's destination).
  template <typename Op>
  std::optional<Transfer> transfer(const Op& op, bool load, bool from_dram = true) {
    std::optional<std::size_t> ti = tensor(op.tensor);
    if (!ti) return std::nullopt;
    const TensorDecl& t = p_.tensors[*ti];
    Transfer x{};
    x.tensor = *ti;
    // What the block and the layout are of: the tensor (by its shape, or a load's view of it), or a
    // window's matrix of that.
    std::vector<std::uint64_t> seen = t.shape;
    const Window* window = nullptr;
    if constexpr (std::is_same_v<Op, Load>) {
      if (!op.view.empty()) {
        std::optional<std::uint64_t> count = 1;
        for (std::uint64_t d : op.view) count = count ? core::checked_mul(*count, d) : std::nullopt;
        if (!count || *count != t.elements()) {
          fail(fmt::format("view {} has {} elements; tensor '{}' of shape {} has {}",
                           layout::shape_string(op.view), count ? fmt::to_string(*count) : "more than 2^64",
                           t.name, layout::shape_string(t.shape), t.elements()));
          return std::nullopt;
        }
        seen = op.view;
      }
    }
    std::vector<std::uint64_t> full = seen;
    if constexpr (std::is_same_v<Op, Load>) {
      if (op.window) {
        window = &*op.window;
        if (from_dram && m_.dram_channels() > 1) {
          fail(fmt::format("a windowed load needs one DRAM channel; machine '{}' has {}", m_.name,
                           m_.dram_channels()));
          return std::nullopt;
        }
        if (std::string e = window_error(*window, seen); !e.empty()) {
          fail(fmt::format("tensor '{}' of shape {}: {}", t.name, layout::shape_string(seen), e));
          return std::nullopt;
        }
        full = *window_matrix_shape(*window, seen);
      }
    }
    const RowList* rows = nullptr;
    if constexpr (std::is_same_v<Op, Load> || std::is_same_v<Op, Store>) {
      if (!op.rows.empty()) {
        rows = &op.rows;
        if (!row_list_ok(op, t, seen, load)) return std::nullopt;
        full = {op.rows.size(), seen[1]};
      }
    }
    const char* what = window ? "the window's matrix" : rows ? "the rows' matrix" : "tensor";
    Block& block = x.block;
    block.shape = op.shape.empty() ? full : op.shape;
    block.offset = op.offset.empty() ? std::vector<std::uint64_t>(full.size(), 0) : op.offset;
    if (block.shape.size() != full.size() || block.offset.size() != full.size()) {
      fail(fmt::format("the block has rank {} but {} '{}' has rank {}", block.shape.size(), what, t.name,
                       full.size()));
      return std::nullopt;
    }
    block.tensor_strides.assign(full.size(), 1);
    for (std::size_t d = full.size(); d-- > 1;)
      block.tensor_strides[d - 1] = block.tensor_strides[d] * full[d];
    for (std::size_t d = 0; d < full.size(); ++d) {
      if (block.offset[d] > full[d] || block.shape[d] > full[d] - block.offset[d]) {
        fail(fmt::format("the block at offset {} of shape {} is not inside {} '{}' of shape {}",
                         layout::shape_string(block.offset), layout::shape_string(block.shape), what, t.name,
                         layout::shape_string(full)));
        return std::nullopt;
      }
      if (block.offset[d] != 0 || block.shape[d] != full[d]) block.whole = false;
    }
    if (window) {
      // DRAM reads each distinct element the windows touch once; the links carry the block.
      x.window = WindowRead{*window, seen, std::nullopt};
      if (from_dram) x.dram_runs = DramRuns(window_runs(*window, seen, block.offset, block.shape));
    }
    if (rows) {
      x.rows = RowRead{seen[1]};
      x.dram_runs = DramRuns(row_runs(*rows, seen[1], block.offset, block.shape));
    }
    const std::size_t element_bytes = core::dtype_bytes(t.dtype);
    for (BoundTransfer& c : bound_cache_) {
      if (c.load != load || c.element_bytes != element_bytes || c.shape != block.shape ||
          !(c.layout == op.layout))
        continue;
      x.bound = c.bound;
      x.footprint_bytes = c.footprint_bytes;
      x.plan = c.plan;
      x.ports = c.ports;
      return with_row_traffic(with_window_reads(std::move(x), element_bytes, op), rows, load, c);
    }
    layout::BindResult bound = layout::bind_layout(op.layout, block.shape, m_, element_bytes);
    if (!bound) {
      const layout::Diagnostic& d = bound.validation.errors.front();
      std::string where = d.column ? fmt::format(" at column {}", d.column) : "";
      fail(fmt::format("layout \"{}\"{}: {}", layout::to_string(op.layout), where, d.headline()));
      return std::nullopt;
    }
    if (bound.layout->has_time()) {
      fail(fmt::format(
          "layout \"{}\": E140 a _Time layout is not resident; the loader places everything at once",
          layout::to_string(op.layout)));
      return std::nullopt;
    }
    x.bound = std::move(*bound.layout);
    x.footprint_bytes = x.bound.footprint_bytes_per_unit();
    x.plan = load ? layout::plan_load(x.bound) : layout::plan_gather(x.bound);
    x.ports = load ? layout::load_port_traffic(x.bound) : layout::gather_port_traffic(x.bound);
    bound_cache_.push_back(
        {op.layout, block.shape, element_bytes, load, x.bound, x.footprint_bytes, x.plan, x.ports, nullptr});
    return with_row_traffic(with_window_reads(std::move(x), element_bytes, op), rows, load,
                            bound_cache_.back());
  }

  // A row gather or scatter: a rank-2 tensor (or view), rows inside it, none written twice; one
  // DRAM channel (the rows are read or written as runs of one tensor's bytes).
  template <typename Op>
  bool row_list_ok(const Op& op, const TensorDecl& t, const std::vector<std::uint64_t>& seen, bool load) {
    if (seen.size() != 2) {
      fail(fmt::format("a row {} needs a rank-2 tensor (or view); '{}' has shape {}",
                       load ? "gather" : "scatter", t.name, layout::shape_string(seen)));
      return false;
    }
    if (m_.dram_channels() > 1) {
      fail(fmt::format("a row {} needs one DRAM channel; machine '{}' has {}", load ? "gather" : "scatter",
                       m_.name, m_.dram_channels()));
      return false;
    }
    std::vector<std::uint8_t> written(load ? 0 : seen[0], 0);
    bool ok = true;
    op.rows.for_each(0, op.rows.size(), [&](std::uint64_t at, const RowRun& run) {
      if (!ok || run.padding()) return;
      if (run.first + run.count > seen[0]) {
        const std::uint64_t bad = std::max(run.first, seen[0]);
        fail(fmt::format("rows[{}] = {} is not a row of '{}' ({} rows)", at + (bad - run.first), bad, t.name,
                         seen[0]));
        ok = false;
        return;
      }
      for (std::uint64_t k = 0; k < run.count && !load; ++k)
        if (written[run.first + k]++) {
          fail(fmt::format("rows[{}]: row {} of '{}' is written twice", at + k, run.first + k, t.name));
          ok = false;
          return;
        }
    });
    return ok;
  }

  // A row gather's links carry each unit's distinct rows and DRAM reads each distinct row once; a row
  // scatter sends its non-padding elements up (row_gather.h).
  Transfer with_row_traffic(Transfer x, const RowList* rows, bool load, BoundTransfer& cached) {
    if (!x.rows) return x;
    const RowRead& r = *x.rows;
    if (!cached.held) cached.held = std::make_shared<const std::vector<HeldBlock>>(held_blocks(x.bound));
    if (load) {
      HaloTraffic h = row_gather_traffic(*rows, r.row_elements, x.block.offset, x.bound, *cached.held);
      x.plan = std::move(h.plan);
      x.ports = std::move(h.ports);
    } else {
      RowScatterTraffic s = row_scatter_traffic(*rows, r.row_elements, x.block.offset, x.bound, *cached.held);
      x.plan = std::move(s.plan);
      x.ports = std::move(s.ports);
    }
    return x;
  }

  // A windowed load's DRAM reads are its distinct elements, not the block's (what the links carry);
  // expanded at the PEs, the links carry each unit's distinct elements too (halo.h).
  template <typename Op>
  Transfer with_window_reads(Transfer x, std::size_t element_bytes, const Op& op) {
    if (!x.window) return x;
    if (!x.dram_runs) return x;  // from the LMs (a windowed convert): no DRAM reads
    x.plan.dram_read_bytes = x.dram_runs->elements * element_bytes;
    if constexpr (std::is_same_v<Op, Load>) {
      if (op.halo) {
        const HaloTraffic& h = halo(op.layout, x, element_bytes);
        x.plan = h.plan;
        x.ports = h.ports;
        x.window->halo_patch_bytes = h.largest_patch * element_bytes;
      }
    }
    return x;
  }

  const HaloTraffic& halo(const layout::TensorLayout& layout, const Transfer& x, std::size_t element_bytes) {
    const WindowRead& w = *x.window;
    const std::uint64_t row = x.block.offset[0] % (w.window.out_h * w.window.out_w), col = x.block.offset[1];
    for (const HaloEntry& e : halo_cache_)
      if (e.first_row_in_image == row && e.first_col == col && e.element_bytes == element_bytes &&
          e.shape == x.block.shape && e.tensor == w.tensor_shape && e.window == w.window &&
          e.layout == layout)
        return e.traffic;
    halo_cache_.push_back({layout, x.block.shape, w.tensor_shape, element_bytes, w.window, row, col,
                           halo_traffic(w.window, w.tensor_shape, x.block.offset, x.bound)});
    return halo_cache_.back().traffic;
  }

 private:
  const Program& p_;
  const machine::MachineConfig& m_;
  std::size_t index_;
  core::Errors& errors_;
  std::vector<BoundTransfer>& bound_cache_;
  std::vector<HaloEntry>& halo_cache_;
  bool failed_ = false;
};

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

}  // namespace

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
              pi.writes.push_back({dram_space(pi.transfer->tensor), 0, t.bytes()});
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
            [&](const Copy& op) {
              c.lm(pi.reads, op.src, {op.bytes});
              c.lm(pi.writes, op.dst, {op.bytes});
            },
            [&](const Broadcast& op) { check_collective(op, op.bytes, m, c, pi); },
            [&](const Scatter& op) { check_collective(op, op.bytes, m, c, pi); },
            [&](const Gather& op) { check_collective(op, op.bytes, m, c, pi); },
            [&](const Reduce& op) {
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
