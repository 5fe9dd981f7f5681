// The planner's choice between im2col and halo loads for a convolution's windows: both priced by
// the cost model from the traffic the checker will charge (sim/program/halo.h for the patches).
#include <fmt/format.h>

#include "kernels/conv2d/conv2d.h"
#include "kernels/gemm/gemm_estimate.h"
#include "sim/layout/parse.h"
#include "sim/program/halo.h"
#include "sim/timing/cost_model.h"

namespace treesim::kernels {

Result<WindowLoads> parse_window_loads(const std::string& text) {
  if (text == "auto") return WindowLoads::kAuto;
  if (text == "im2col") return WindowLoads::kIm2col;
  if (text == "halo") return WindowLoads::kHalo;
  return core::Error{"--windows", fmt::format("expected auto, im2col or halo, got '{}'", text)};
}

namespace {

// The plan with im2col windows: its patch buffers, if any, given back to the LM.
QgemmPlan without_halo(QgemmPlan plan) {
  if (plan.lm_halo) {
    plan.lm_bytes -= plan.buffers * plan.halo_patch;
    plan.lm_halo.reset();
    plan.halo_patch = 0;
  }
  return plan;
}

}  // namespace

WindowPricing price_window_loads(const ConvShape& shape, const QgemmProblem& gemm, const QgemmPlan& plan,
                                 const machine::MachineConfig& m, bool price_halo) {
  WindowPricing out;
  const timing::CostModel cost(m);
  const std::uint64_t bm = std::min(gemm.m, plan.pm * plan.tm), bk = std::min(gemm.k, plan.pk * plan.kt);
  const layout::BoundLayout tile = layout::bind_or_throw(tile_layout_a(plan, m, bm, bk), {bm, bk}, m, 1);
  const program::Window w = shape.window();
  const std::vector<std::uint64_t> x{shape.n, shape.h, shape.w, shape.c};

  const QgemmPlan im2col = without_halo(plan);
  layout::TrafficPlan board = layout::plan_load(tile);
  std::uint64_t distinct = 0;
  for (const program::ElementRun& r : program::window_runs(w, x, {0, 0}, {bm, bk})) distinct += r.count;
  board.dram_read_bytes = distinct;
  const timing::TransferTime board_time = cost.load(board);
  out.im2col_cycles = estimate_cycles(gemm, im2col, m, nullptr, &board_time);

  if (!price_halo) {
    out.halo_refusal = "not priced (--windows im2col)";
    return out;
  }
  // The patch never holds more than the PE's slots: the A tile's footprint bounds every tile's.
  const std::uint64_t patch = out.patch_bytes = tile.footprint_bytes_per_unit();
  if (im2col.lm_bytes + 2 * patch > m.lm_bytes()) {
    out.halo_refusal =
        fmt::format("refused: its two patch buffers need {} more LM bytes per PE; the plan leaves {}",
                    2 * patch, m.lm_bytes() - std::min(m.lm_bytes(), im2col.lm_bytes));
    return out;
  }
  const program::HaloTraffic h = program::halo_traffic(w, x, {0, 0}, tile);
  timing::TransferTime halo_time = cost.load(h.plan);
  const timing::UnitTime copy = cost.unit(timing::Unit::kCopy, patch);  // every slot of the PE's tile
  halo_time.stages.push_back({timing::Resource::unit(timing::Unit::kCopy), 0, copy.busy});
  halo_time.latency += copy.duration();  // the copy unit starts when the patch has landed
  QgemmPlan halo = im2col;
  halo.lm_halo = im2col.lm_bytes;
  halo.halo_patch = patch;
  halo.lm_bytes += halo.buffers * patch;
  out.halo_cycles = estimate_cycles(gemm, halo, m, nullptr, &halo_time);
  return out;
}

WindowPricing price_lm_windows(const ConvShape& shape, const QgemmProblem& gemm, QgemmPlan& plan,
                               const LmTensor& input, const machine::MachineConfig& m) {
  plan = without_halo(std::move(plan));
  WindowPricing out;
  out.lm_cycles = plan.estimated_cycles =
      estimate_with_a_in_lm(gemm, plan, input, shape.window(), {shape.n, shape.h, shape.w, shape.c}, m);
  return out;
}

core::Errors choose_window_loads(const ConvShape& shape, const QgemmProblem& gemm, WindowLoads mode,
                                 QgemmPlan& plan, const machine::MachineConfig& m, WindowPricing* priced) {
  const WindowPricing price = price_window_loads(shape, gemm, plan, m, mode != WindowLoads::kIm2col);
  if (priced) *priced = price;
  const bool halo = mode == WindowLoads::kHalo || (mode == WindowLoads::kAuto && price.halo_refusal.empty() &&
                                                   price.halo_cycles < price.im2col_cycles);
  if (mode == WindowLoads::kHalo && !price.halo_refusal.empty())
    return {{"--windows", "halo " + price.halo_refusal}};
  plan = without_halo(std::move(plan));
  if (halo) {
    plan.lm_halo = plan.lm_bytes;
    plan.halo_patch = price.patch_bytes;
    plan.lm_bytes += plan.buffers * price.patch_bytes;
  }
  plan.estimated_cycles = halo ? price.halo_cycles : price.im2col_cycles;
  return {};
}

}  // namespace treesim::kernels
