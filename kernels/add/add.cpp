#include "kernels/add/add.h"

#include <fmt/format.h>

#include <algorithm>

#include "kernels/every_pe.h"
#include "kernels/seeded_options.h"
#include "sim/core/mt19937_64.h"
#include "sim/layout/diagnostic.h"
#include "sim/layout/parse.h"
#include "sim/timing/cost_model.h"

namespace treesim::kernels {
namespace {

using timing::ceil_div;

struct AddPlan {
  EveryPe pes;
  std::uint64_t tile = 0, passes = 0;  // elements per PE and pass
};

// `count` elements over every PE, `tile` per PE (a pad prefix pads a short last block).
std::string add_tile_layout(const AddPlan& p, std::uint64_t count) {
  const std::string pad = count == p.pes.units * p.tile ? "" : fmt::format("({})/", count);
  return pad + fmt::format("(({}{}:1))", p.pes.levels, p.tile);
}

class QuantizedAdd : public Problem {
 public:
  QuantizedAdd(numeric::AddStage stage, std::vector<std::uint8_t> a, std::vector<std::uint8_t> b)
      : stage_(stage), a_(std::move(a)), b_(std::move(b)) {}

  core::Errors check(const machine::MachineConfig& m) const override {
    core::Errors e;
    if (std::string s = numeric::add_stage_error(stage_); !s.empty()) e.push_back({"", s});
    if (m.pe.words_per_address > 1)
      e.push_back(
          {"--machine", fmt::format("qadd reads LM bytes one by one; machine '{}' packs {} per address",
                                    m.name, m.pe.words_per_address)});
    if (3 * a_.size() > m.dram.bytes)
      e.push_back({"--n", fmt::format("A, B and Y need {} bytes of DRAM, the machine has {}", 3 * a_.size(),
                                      m.dram.bytes)});
    return e;
  }

  Result<Plan> plan(const machine::MachineConfig& m) const override {
    AddPlan p;
    p.pes = every_pe(m);
    const std::uint64_t n = a_.size();
    // Two buffers each of A, B and Y: 6 bytes an element.
    p.tile = std::min(ceil_div(n, p.pes.units), m.lm_bytes() / 6);
    if (p.tile == 0) return core::Error{"", fmt::format("the {}-byte LM cannot hold 6 bytes", m.lm_bytes())};
    p.passes = ceil_div(n, p.pes.units * p.tile);
    // Estimate: two buffers overlap a pass's loads with the one before's add and store; the busiest
    // of the three sets the pace, the first loads and the last add and store add theirs.
    Plan out;
    const timing::CostModel cost(m);
    timing::TransferTime load, store;
    try {
      const std::uint64_t block = p.pes.units * p.tile;
      const layout::TensorLayout l = layout::parse_layout_or_throw(add_tile_layout(p, block), m);
      load = cost.load(layout::plan_load(layout::bind_or_throw(l, {block}, m, 1)));
      store = cost.store(layout::plan_gather(layout::bind_or_throw(l, {block}, m, 1)));
    } catch (const layout::LayoutError& e) {
      return core::Error{"", e.what()};
    }
    const timing::UnitTime add = cost.unit(timing::Unit::kRequant, p.tile);
    const std::uint64_t loads = 2 * (load.duration() - load.latency);
    const std::uint64_t pace = std::max({loads, add.busy, store.duration() - store.latency});
    out.estimated_cycles =
        static_cast<double>(load.latency + loads + (p.passes - 1) * pace + add.duration() + store.duration());
    out.description = fmt::format("plan: {} elements per PE in {} passes over {} PEs; LM {} of {} bytes",
                                  p.tile, p.passes, p.pes.units, 6 * p.tile, m.lm_bytes());
    out.mapping = p;
    return out;
  }

  Result<program::Program> program(const Plan& plan, const machine::MachineConfig& m) const override {
    const auto* mapping = std::any_cast<AddPlan>(&plan.mapping);
    if (!mapping) return core::Error{"", "qadd: the plan was not made by qadd"};
    const AddPlan& p = *mapping;
    const std::uint64_t n = a_.size(), block = p.pes.units * p.tile;
    program::Program prog;
    prog.tensors = {{"A", {n}, stage_.a_dtype}, {"B", {n}, stage_.b_dtype}, {"Y", {n}, stage_.out_dtype}};
    for (std::uint64_t pass = 0; pass < p.passes; ++pass) {
      const std::uint64_t at = pass * block, count = std::min(block, n - at);
      // Buffers (each a tile): A twice, B twice, Y twice.
      const std::uint64_t buf = pass % 2, a = buf * p.tile, b = (2 + buf) * p.tile, y = (4 + buf) * p.tile;
      layout::TensorLayout layout;
      try {
        layout = layout::parse_layout_or_throw(add_tile_layout(p, count), m);
      } catch (const layout::LayoutError& e) {
        return core::Error{"", e.what()};
      }
      program::Load la, lb;
      la.tensor = "A", la.layout = layout, la.lm = a, la.offset = {at}, la.shape = {count};
      la.pad = stage_.a_zero;
      lb = la;
      lb.tensor = "B", lb.lm = b, lb.pad = stage_.b_zero;
      program::Store st;
      st.tensor = "Y", st.layout = layout, st.lm = y, st.offset = {at}, st.shape = {count};
      prog.instrs.insert(prog.instrs.end(), {la, lb, program::QuantAdd{a, b, y, p.tile, stage_}, st});
    }
    return prog;
  }

  DramImage inputs() const override { return {{"A", a_}, {"B", b_}}; }

  Result<DramImage> reference() const override { return DramImage{{"Y", reference_add(stage_, a_, b_)}}; }

  void add_report_fields(const Plan& plan, const machine::MachineConfig&,
                         report::RunStats& stats) const override {
    const auto* p = std::any_cast<AddPlan>(&plan.mapping);
    if (!p) return;
    stats.info["plan"] = plan.description;
    stats.extra["n"] = a_.size();
    stats.extra["tile"] = p->tile;
    stats.extra["passes"] = p->passes;
  }

  std::vector<OutputArray> outputs() const override {
    return {{"Y", stage_.out_dtype, {a_.size()}, std::nullopt}};
  }

 private:
  numeric::AddStage stage_;
  std::vector<std::uint8_t> a_, b_;
};

Result<std::unique_ptr<Problem>> make_qadd(const Options& o, const machine::MachineConfig& m) {
  const std::uint64_t n = *o.unsigned_int("n");
  if (n > m.dram.bytes / 3)
    return core::Error{
        "--n", fmt::format("{} elements of A, B and Y need more than the machine's {} bytes of DRAM", n,
                           m.dram.bytes)};
  numeric::AddStage s;
  s.a_dtype = option_dtype(o.text("dtype-a")), s.b_dtype = option_dtype(o.text("dtype-b"));
  s.a_zero = option_zero(o, "a-zero", s.a_dtype), s.b_zero = option_zero(o, "b-zero", s.b_dtype);
  const numeric::OutputStage out = seeded_output_stage(o);
  s.out_dtype = out.out_dtype, s.out_zero = out.out_zero_point;
  s.act_min = out.act_min, s.act_max = out.act_max;
  Result<float> a_scale = positive_number_option<float>(o, "a-scale", 16777216.0f, "2^24");
  Result<float> b_scale = positive_number_option<float>(o, "b-scale", 16777216.0f, "2^24");
  if (!a_scale) return a_scale.errors();
  if (!b_scale) return b_scale.errors();
  s.a_scale = a_scale.value(), s.b_scale = b_scale.value();
  if (std::string e = numeric::add_stage_error(s); !e.empty()) return core::Error{"", e};
  core::Mt19937_64 gen(o.unsigned_int("seed").value_or(1));
  std::vector<std::uint8_t> a(n), b(n);
  for (auto& v : a) v = static_cast<std::uint8_t>(gen() >> 24);
  for (auto& v : b) v = static_cast<std::uint8_t>(gen() >> 24);
  return std::unique_ptr<Problem>(new QuantizedAdd(s, std::move(a), std::move(b)));
}

std::vector<OptionSpec> qadd_options() {
  auto scale = [](const char* name, const char* help) {
    return OptionSpec{name, OptionKind::kText, help, OptionValue{std::string("0.5")}, {}, {}, {}};
  };
  return {
      size_option("n", "Elements of A, B and Y"),
      dtype_option("dtype-a", "A's type: u8 or s8"),
      dtype_option("dtype-b", "B's type: u8 or s8"),
      dtype_option("dtype-out", "Y's type: u8 or s8"),
      zero_option("a-zero", "A's zero point (default 128 for u8, 0 for s8)"),
      zero_option("b-zero", "B's zero point (default 128 for u8, 0 for s8)"),
      zero_option("out-zero", "Y's zero point (default 128 for u8, 0 for s8)"),
      scale("a-scale", "A's scale over Y's (a float32)"),
      scale("b-scale", "B's scale over Y's (a float32)"),
      act_option(),
      {"seed",
       OptionKind::kUnsigned,
       "Seed of the random A and B",
       OptionValue{std::uint64_t{1}},
       {},
       {},
       {}},
  };
}

}  // namespace

Result<std::unique_ptr<Problem>> add_problem(const numeric::AddStage& stage, std::vector<std::uint8_t> a,
                                             std::vector<std::uint8_t> b) {
  if (a.size() != b.size())
    return core::Error{"", fmt::format("qadd: A has {} elements and B {}", a.size(), b.size())};
  if (a.empty()) return core::Error{"", "qadd: no elements"};
  if (std::string e = numeric::add_stage_error(stage); !e.empty()) return core::Error{"", "qadd: " + e};
  return std::unique_ptr<Problem>(new QuantizedAdd(stage, std::move(a), std::move(b)));
}

std::vector<std::uint8_t> reference_add(const numeric::AddStage& s, const std::vector<std::uint8_t>& a,
                                        const std::vector<std::uint8_t>& b) {
  auto value = [](std::uint8_t v, core::DType t) {
    return t == core::DType::kInt8 ? static_cast<std::int32_t>(static_cast<std::int8_t>(v)) : std::int32_t{v};
  };
  std::vector<std::uint8_t> y(a.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    y[i] =
        static_cast<std::uint8_t>(numeric::quantized_add(value(a[i], s.a_dtype), value(b[i], s.b_dtype), s));
  return y;
}

Kernel qadd_kernel() {
  return {"qadd",
          "Quantized element-wise add of two int8/uint8 tensors (ONNX Runtime's QLinearAdd), verified "
          "bit-exactly",
          qadd_options(),
          "Write the output (Y) as .npy",
          {{"n", "1000"}},
          &make_qadd,
          "",
          /*tunable=*/false,
          /*plan_files=*/false};
}

}  // namespace treesim::kernels
