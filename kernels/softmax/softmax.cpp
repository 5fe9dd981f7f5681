// softmax: Y = softmax(scale · X) over the last axis of a rows × cols float32 matrix, on the PE
// vector unit (pe.vector) in float32. Each PE holds whole rows (its row statistics need no tree
// reduce) and streams its rows through two LM buffers: per pass a load, then in place on the vector
// unit
//   [x = x · scale]  m = row_max(x)  x = x − m  x = exp(x)  s = row_sum(x)  r = 1 / s  x = x · r
// and a store. docs/numerics.md §6.8 defines each operation; the reference computes the same
// sequence row by row on the host, so a run is bit-exact against it.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "kernels/every_pe.h"
#include "kernels/kernel.h"
#include "sim/core/mt19937_64.h"
#include "sim/layout/bound_layout.h"
#include "sim/layout/diagnostic.h"
#include "sim/layout/loader_plan.h"
#include "sim/layout/parse.h"
#include "sim/numeric/vector_math.h"
#include "sim/timing/cost_model.h"

namespace treesim::kernels {
namespace {

using core::VectorOp;
using timing::ceil_div;

struct SoftmaxPlan {
  EveryPe pes;
  std::uint64_t tile = 0, passes = 0;  // rows per PE and pass; passes
  std::uint64_t buffer = 0;            // LM bytes of one buffer: tile rows, then 2·tile statistics
};

// A buffer holds `tile` rows of X (in place: they become Y) and two statistics per row.
std::uint64_t buffer_bytes(std::uint64_t tile, std::uint64_t cols) { return tile * (cols + 2) * 4; }

// `count` rows over every PE, `tile` per PE (a pad prefix pads a short last block).
std::string rows_layout(const SoftmaxPlan& p, std::uint64_t count, std::uint64_t cols) {
  const std::string pad = count == p.pes.units * p.tile ? "" : fmt::format("({},{})/", count, cols);
  return pad + fmt::format("(({}{}:{}), ({}:1))", p.pes.levels, p.tile, cols, cols);
}

// The vector instructions of one pass over the buffer at `x` (rows, then maxima, then sums).
std::vector<program::Instr> pass_ops(std::uint64_t x, std::uint64_t tile, std::uint64_t cols, float scale) {
  using program::Vector;
  using program::VectorOperand;
  const std::uint64_t m = x + tile * cols * 4, s = m + tile * 4;
  auto op = [&](VectorOp o, std::uint64_t a, std::uint64_t dst, std::uint64_t rows, std::uint64_t c) {
    Vector v;
    v.op = o, v.a = a, v.dst = dst, v.rows = rows, v.cols = c;
    return v;
  };
  auto per_row = [&](VectorOp o, std::uint64_t b) {
    Vector v = op(o, x, x, tile, cols);
    v.b = b, v.b_form = VectorOperand::kPerRow;
    return v;
  };
  std::vector<program::Instr> out;
  if (scale != 1.0f) {
    Vector v = op(VectorOp::kMul, x, x, tile, cols);
    v.b_form = VectorOperand::kImmediate, v.imm = scale;
    out.push_back(v);
  }
  out.push_back(op(VectorOp::kRowMax, x, m, tile, cols));
  out.push_back(per_row(VectorOp::kSub, m));
  out.push_back(op(VectorOp::kExp, x, x, tile, cols));
  out.push_back(op(VectorOp::kRowSum, x, s, tile, cols));
  out.push_back(op(VectorOp::kReciprocal, s, s, tile, 1));
  out.push_back(per_row(VectorOp::kMul, s));
  return out;
}

class Softmax : public Problem {
 public:
  Softmax(std::uint64_t rows, std::uint64_t cols, float scale, std::vector<float> x)
      : rows_(rows), cols_(cols), scale_(scale), x_(std::move(x)) {}

  core::Errors check(const machine::MachineConfig& m) const override {
    core::Errors e;
    if (!m.pe.vector)
      e.push_back(
          {"", fmt::format("machine '{}' has no vector unit (pe.vector): softmax runs on it", m.name)});
    else
      for (VectorOp op : {VectorOp::kExp, VectorOp::kReciprocal})
        if (!m.pe.vector->cost(op))
          e.push_back({"", fmt::format("machine '{}' does not price vector operation '{}' (pe.vector.ops.{})",
                                       m.name, core::vector_op_name(op), core::vector_op_name(op))});
    // Two buffers of one row each at least; a row spanning PEs is not planned yet.
    if (2 * buffer_bytes(1, cols_) > m.lm_bytes())
      e.push_back(
          {"--cols", fmt::format("a row of {} float32 values needs {} bytes in two LM buffers; the LM has {} "
                                 "(rows spanning PEs are not planned yet)",
                                 cols_, 2 * buffer_bytes(1, cols_), m.lm_bytes())});
    return e;
  }

  Result<Plan> plan(const machine::MachineConfig& m) const override {
    SoftmaxPlan p;
    p.pes = every_pe(m);
    p.tile = std::min(ceil_div(rows_, p.pes.units), m.lm_bytes() / (2 * buffer_bytes(1, cols_)));
    p.passes = ceil_div(rows_, p.pes.units * p.tile);
    p.buffer = buffer_bytes(p.tile, cols_);
    // Estimate (the cost model's closed forms): two buffers let a pass's load overlap the previous
    // pass's vector work and store, so the busiest of the three sets the pace.
    const timing::CostModel cost(m);
    timing::TransferTime load, store;
    const std::uint64_t block = p.pes.units * p.tile;
    try {
      const layout::TensorLayout l = layout::parse_layout_or_throw(rows_layout(p, block, cols_), m);
      const layout::BoundLayout b = layout::bind_or_throw(l, {block, cols_}, m, 4);
      load = cost.load(layout::plan_load(b));
      store = cost.store(layout::plan_gather(b));
    } catch (const layout::LayoutError& e) {
      return core::Error{"", e.what()};
    }
    std::uint64_t vector_busy = 0, vector_duration = 0;
    for (const program::Instr& i : pass_ops(0, p.tile, cols_, scale_)) {
      const auto& v = std::get<program::Vector>(i);
      const timing::UnitTime t = cost.vector(v.op, v.values());
      vector_busy += t.busy;
      vector_duration += t.duration();
    }
    const std::uint64_t pace =
        std::max({load.duration() - load.latency, vector_busy, store.duration() - store.latency});
    Plan out;
    out.estimated_cycles =
        static_cast<double>(load.duration() + (p.passes - 1) * pace + vector_duration + store.duration());
    out.description = fmt::format(
        "plan: {} rows of {} per PE in {} passes over {} PEs, each row inside one PE; LM {} of {} bytes",
        p.tile, cols_, p.passes, p.pes.units, 2 * p.buffer, m.lm_bytes());
    out.mapping = p;
    return out;
  }

  Result<program::Program> program(const Plan& plan, const machine::MachineConfig& m) const override {
    const auto* mapping = std::any_cast<SoftmaxPlan>(&plan.mapping);
    if (!mapping) return core::Error{"", "softmax: the plan was not made by softmax"};
    const SoftmaxPlan& p = *mapping;
    program::Program prog;
    prog.tensors = {{"X", {rows_, cols_}, core::DType::kFloat32},
                    {"Y", {rows_, cols_}, core::DType::kFloat32}};
    const std::uint64_t block = p.pes.units * p.tile;
    for (std::uint64_t pass = 0; pass < p.passes; ++pass) {
      const std::uint64_t at = pass * block, count = std::min(block, rows_ - at);
      const std::uint64_t x = (pass % 2) * p.buffer;
      layout::TensorLayout layout;
      try {
        layout = layout::parse_layout_or_throw(rows_layout(p, count, cols_), m);
      } catch (const layout::LayoutError& e) {
        return core::Error{"", e.what()};
      }
      program::Load load;
      load.tensor = "X", load.layout = layout, load.lm = x, load.offset = {at, 0},
      load.shape = {count, cols_};
      prog.instrs.push_back(load);
      for (program::Instr& i : pass_ops(x, p.tile, cols_, scale_)) prog.instrs.push_back(std::move(i));
      program::Store store;
      store.tensor = "Y", store.layout = layout, store.lm = x, store.offset = {at, 0},
      store.shape = {count, cols_};
      prog.instrs.push_back(store);
    }
    return prog;
  }

  DramImage inputs() const override {
    std::vector<std::uint8_t> bytes(x_.size() * 4);
    std::memcpy(bytes.data(), x_.data(), bytes.size());
    return {{"X", std::move(bytes)}};
  }

  // Row by row, in the order the header gives, with the vector unit's operations (vector_math.h).
  Result<DramImage> reference() const override {
    std::vector<float> y(x_.size());
    for (std::uint64_t r = 0; r < rows_; ++r) {
      float* row = y.data() + r * cols_;
      for (std::uint64_t c = 0; c < cols_; ++c)
        row[c] = scale_ != 1.0f ? x_[r * cols_ + c] * scale_ : x_[r * cols_ + c];
      float mx = row[0];
      for (std::uint64_t c = 1; c < cols_; ++c) mx = std::fmax(mx, row[c]);
      float sum = 0.0f;
      for (std::uint64_t c = 0; c < cols_; ++c) {
        row[c] = numeric::vector_unary(VectorOp::kExp, row[c] - mx);
        sum += row[c];
      }
      const float inv = 1.0f / sum;
      for (std::uint64_t c = 0; c < cols_; ++c) row[c] *= inv;
    }
    std::vector<std::uint8_t> bytes(y.size() * 4);
    std::memcpy(bytes.data(), y.data(), bytes.size());
    return DramImage{{"Y", std::move(bytes)}};
  }

  void add_report_fields(const Plan& plan, const machine::MachineConfig&,
                         report::RunStats& stats) const override {
    const auto* p = std::any_cast<SoftmaxPlan>(&plan.mapping);
    if (!p) return;
    stats.info["plan"] = plan.description;
    stats.info["numerics"] = "float32";
    stats.extra["rows"] = rows_;
    stats.extra["cols"] = cols_;
    stats.extra["tile"] = p->tile;
    stats.extra["passes"] = p->passes;
  }

  std::vector<OutputArray> outputs() const override {
    return {{"Y", core::DType::kFloat32, {rows_, cols_}, {}}};
  }

 private:
  std::uint64_t rows_, cols_;
  float scale_;
  std::vector<float> x_;
};

Result<std::unique_ptr<Problem>> make_softmax(const Options& o, const machine::MachineConfig& m) {
  const auto rows = o.unsigned_int("rows"), cols = o.unsigned_int("cols");
  if (!rows) return core::Error{"--rows", "give the number of rows"};
  if (!cols) return core::Error{"--cols", "give the number of columns (the axis softmax normalizes)"};
  // X and Y, 4 bytes an element each; refused before anything is allocated.
  const auto elements = checked_mul(*rows, *cols);
  const auto bytes = elements ? checked_mul(*elements, 8) : std::nullopt;
  if (!bytes || *bytes > m.dram.bytes)
    return core::Error{
        "--rows", fmt::format("{} × {} float32 values in X and Y need {} bytes of DRAM, the machine has {}",
                              *rows, *cols, bytes ? std::to_string(*bytes) : "more than 2^64", m.dram.bytes)};
  const std::string scale_text = o.text("scale");
  char* end = nullptr;
  const float scale = std::strtof(scale_text.c_str(), &end);
  if (scale_text.empty() || *end != '\0' || !std::isfinite(scale) || scale == 0.0f)
    return core::Error{"--scale", fmt::format("expected a finite, nonzero number, got '{}'", scale_text)};
  if (o.text("numerics") != "float32")
    return core::Error{"--numerics", "expected float32 (integer numerics are not built yet)"};
  // Scores as an int8 GEMM's would dequantize: multiples of 1/16 in [-8, 8).
  core::Mt19937_64 gen(o.unsigned_int("seed").value_or(1));
  std::vector<float> x(*elements);
  for (float& v : x) v = static_cast<float>(static_cast<int>(gen() % 256) - 128) / 16.0f;
  return std::unique_ptr<Problem>(new Softmax(*rows, *cols, scale, std::move(x)));
}

}  // namespace

Kernel softmax_kernel() {
  return {
      "softmax",
      "Softmax over the rows of a float32 matrix on the PE vector unit, Y = softmax(scale · X)",
      {{"rows", OptionKind::kUnsigned, "Rows of X and Y", std::nullopt, {}, 1, std::nullopt},
       {"cols",
        OptionKind::kUnsigned,
        "Columns: the axis each softmax normalizes",
        std::nullopt,
        {},
        1,
        std::nullopt},
       {"scale",
        OptionKind::kText,
        "Multiplies X first (attention's 1/sqrt(head dim))",
        OptionValue{std::string("1")},
        {},
        {},
        {}},
       {"numerics",
        OptionKind::kChoice,
        "How the vector unit computes",
        OptionValue{std::string("float32")},
        {"float32"},
        {},
        {}},
       {"seed", OptionKind::kUnsigned, "Seed of the random X", OptionValue{std::uint64_t{1}}, {}, {}, {}}},
      "Write Y as .npy",
      {{"rows", "64"}, {"cols", "32"}},
      &make_softmax,
      ""};
}

}  // namespace treesim::kernels
