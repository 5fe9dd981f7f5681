// relu: the smallest kernel of the contract, and an example to copy. A quantized ReLU of an int32
// vector X (accumulators from elsewhere): Y = clamp(requant(X · 1/256), 0, 127) as int8, with X
// split over every PE and streamed through two LM buffers (load, requant, store per pass).
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "kernels/every_pe.h"
#include "kernels/kernel.h"
#include "kernels/requant_of_stage.h"
#include "sim/core/mt19937_64.h"
#include "sim/layout/bound_layout.h"
#include "sim/layout/diagnostic.h"
#include "sim/layout/loader_plan.h"
#include "sim/layout/parse.h"
#include "sim/numeric/requant.h"
#include "sim/timing/cost_model.h"

namespace treesim::kernels {
namespace {

using timing::ceil_div;

// X's elements per PE and pass, and the passes.
struct ReluPlan {
  EveryPe pes;  // the levels that spread the elements (or rows) over every PE
  std::uint64_t tile = 0, passes = 0;
  std::uint64_t words = 1;  // elements per LM address: tile is a multiple of it
};

// `count` elements over every PE, `tile` per PE (a pad prefix pads a short last block). With
// several elements per LM address the tile fills its addresses lane by lane, so that its bytes are
// contiguous, as the requant unit reads them.
std::string tile_layout(const ReluPlan& p, std::uint64_t count) {
  const std::string pad = count == p.pes.units * p.tile ? "" : fmt::format("({})/", count);
  if (p.words == 1) return pad + fmt::format("(({}{}:1))", p.pes.levels, p.tile);
  return pad + fmt::format("(({}{}:1, {}_W))", p.pes.levels, p.tile / p.words, p.words);
}

std::uint64_t words_per_address(const machine::MachineConfig& m) {
  return std::max<std::uint64_t>(1, m.pe.words_per_address);
}

numeric::OutputStage relu_stage() {
  numeric::OutputStage s;
  s.multipliers = {numeric::quantize_multiplier(1.0 / 256.0)};
  s.act_min = 0;  // the ReLU: clamp at the output zero point
  return s;
}

class Relu : public Problem {
 public:
  Relu(std::uint64_t n, std::vector<std::uint8_t> x) : n_(n), x_(std::move(x)) {}

  core::Errors check(const machine::MachineConfig& m) const override {
    const std::uint64_t w = words_per_address(m);
    if (m.lm_bytes() < 10 * w)
      return {{"", fmt::format("the {}-byte LM cannot hold two {}-byte buffers", m.lm_bytes(), 5 * w)}};
    return {};
  }

  Result<Plan> plan(const machine::MachineConfig& m) const override {
    ReluPlan p;
    p.pes = every_pe(m);
    // Two buffers of X (int32) and Y (int8): 10 bytes per element, whole words of them.
    p.words = words_per_address(m);
    p.tile = std::min(ceil_div(ceil_div(n_, p.pes.units), p.words), m.lm_bytes() / 10 / p.words) * p.words;
    p.passes = ceil_div(n_, p.pes.units * p.tile);
    // Estimate (the cost model's closed forms): two buffers let a pass's load overlap the previous
    // pass's requant and store, so the busiest of the three sets the pace; the first load and the
    // last requant and store add their full durations.
    Plan out;
    const timing::CostModel cost(m);
    timing::TransferTime load, store;
    try {
      const layout::TensorLayout l = layout::parse_layout_or_throw(tile_layout(p, p.pes.units * p.tile), m);
      load = cost.load(layout::plan_load(layout::bind_or_throw(l, {p.pes.units * p.tile}, m, 4)));
      store = cost.store(layout::plan_gather(layout::bind_or_throw(l, {p.pes.units * p.tile}, m, 1)));
    } catch (const layout::LayoutError& e) {
      return core::Error{"", e.what()};
    }
    const timing::UnitTime requant = cost.unit(timing::Unit::kRequant, p.tile);
    const std::uint64_t pace =
        std::max({load.duration() - load.latency, requant.busy, store.duration() - store.latency});
    out.estimated_cycles =
        static_cast<double>(load.duration() + (p.passes - 1) * pace + requant.duration() + store.duration());
    out.description = fmt::format("plan: {} elements per PE in {} passes over {} PEs; LM {} of {} bytes",
                                  p.tile, p.passes, p.pes.units, 10 * p.tile, m.lm_bytes());
    out.mapping = p;
    return out;
  }

  Result<program::Program> program(const Plan& plan, const machine::MachineConfig& m) const override {
    const auto* mapping = std::any_cast<ReluPlan>(&plan.mapping);
    if (!mapping) return core::Error{"", "relu: the plan was not made by relu"};
    const ReluPlan& p = *mapping;
    program::Program prog;
    prog.tensors = {{"X", {n_}, core::DType::kInt32}, {"Y", {n_}, core::DType::kInt8}};
    const numeric::OutputStage stage = relu_stage();
    const std::uint64_t block = p.pes.units * p.tile;
    for (std::uint64_t pass = 0; pass < p.passes; ++pass) {
      const std::uint64_t at = pass * block, count = std::min(block, n_ - at);
      const std::uint64_t buf = pass % 2, x = buf * 4 * p.tile, y = 8 * p.tile + buf * p.tile;
      layout::TensorLayout layout;
      try {
        layout = layout::parse_layout_or_throw(tile_layout(p, count), m);
      } catch (const layout::LayoutError& e) {
        return core::Error{"", e.what()};
      }
      program::Load load;
      load.tensor = "X", load.layout = layout, load.lm = x, load.offset = {at}, load.shape = {count};
      const program::Requant rq = requant_of_stage(stage, x, y, 1, p.tile);
      program::Store store;
      store.tensor = "Y", store.layout = layout, store.lm = y, store.offset = {at}, store.shape = {count};
      prog.instrs.insert(prog.instrs.end(), {load, rq, store});
    }
    return prog;
  }

  DramImage inputs() const override { return {{"X", x_}}; }

  Result<DramImage> reference() const override {
    const numeric::OutputStage stage = relu_stage();
    std::vector<std::uint8_t> y(n_);
    for (std::uint64_t i = 0; i < n_; ++i) {
      std::int32_t v;
      std::memcpy(&v, x_.data() + 4 * i, 4);
      y[i] = static_cast<std::uint8_t>(numeric::requantize(v, stage, 0));
    }
    return DramImage{{"Y", std::move(y)}};
  }

  void add_report_fields(const Plan& plan, const machine::MachineConfig&,
                         report::RunStats& stats) const override {
    const auto* p = std::any_cast<ReluPlan>(&plan.mapping);
    if (!p) return;
    stats.info["plan"] = plan.description;
    stats.extra["n"] = n_;
    stats.extra["tile"] = p->tile;
    stats.extra["passes"] = p->passes;
  }

  std::vector<OutputArray> outputs() const override { return {{"Y", core::DType::kInt8, {n_}, {}}}; }

 private:
  std::uint64_t n_;
  std::vector<std::uint8_t> x_;  // int32 little-endian
};

Result<std::unique_ptr<Problem>> make_relu(const Options& o, const machine::MachineConfig& m) {
  const auto n = o.unsigned_int("n");
  if (!n) return core::Error{"--n", "give the number of elements"};
  // 4 bytes of X and 1 of Y per element; refused before anything is allocated.
  const auto bytes = checked_mul(*n, 5);
  if (!bytes || *bytes > m.dram.bytes)
    return core::Error{"--n", fmt::format("{} elements need {} bytes of DRAM, the machine has {}", *n,
                                          bytes ? std::to_string(*bytes) : "more than 2^64", m.dram.bytes)};
  core::Mt19937_64 gen(o.unsigned_int("seed").value_or(1));
  std::vector<std::uint8_t> x(*n * 4);
  for (std::uint64_t i = 0; i < *n; ++i) {
    const std::int32_t v = static_cast<std::int32_t>(gen() % 65536) - 32768;
    std::memcpy(x.data() + 4 * i, &v, 4);
  }
  return std::unique_ptr<Problem>(new Relu(*n, std::move(x)));
}

}  // namespace

Kernel relu_kernel() {
  return {
      "relu",
      "Quantized ReLU of an int32 vector, Y = clamp(requant(X/256), 0, 127): the example kernel",
      {{"n", OptionKind::kUnsigned, "Elements of X and Y", std::nullopt, {}, 1, std::nullopt},
       {"seed", OptionKind::kUnsigned, "Seed of the random X", OptionValue{std::uint64_t{1}}, {}, {}, {}}},
      "Write Y as .npy",
      {{"n", "1000"}},
      &make_relu,
      ""};
}

}  // namespace treesim::kernels
