// The checker of one instruction (check_program's helper, for sim/program only): the layouts of a
// transfer bound and planned once per distinct layout and block, LM ranges and their bounds, and
// errors recorded against the instruction.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/core/checked.h"
#include "sim/layout/diagnostic.h"
#include "sim/program/checked_program.h"
#include "sim/program/row_gather.h"
#include "sim/program/row_list.h"
#include "sim/program/window_convert.h"

namespace treesim::program {

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
  const Program& program() const { return p_; }

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

}  // namespace treesim::program
