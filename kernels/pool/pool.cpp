#include "kernels/pool/pool.h"

#include <fmt/format.h>

#include <algorithm>

#include "kernels/every_pe.h"
#include "kernels/requant_of_stage.h"
#include "kernels/seeded_options.h"
#include "sim/core/mt19937_64.h"
#include "sim/layout/diagnostic.h"
#include "sim/layout/parse.h"
#include "sim/timing/cost_model.h"

namespace treesim::kernels {
namespace {

using timing::ceil_div;

struct PoolPlan {
  EveryPe pes;  // the levels that spread the elements (or rows) over every PE
  std::uint64_t tile = 0, passes = 0;
  std::uint64_t in_bytes = 0;  // a tile's input bytes per PE (tile rows of C·R·S)
};

// `rows` of a block whose full tiles are units·tile rows, `cols` wide, each PE a run of tile rows.
std::string pool_tile_layout(const PoolPlan& p, std::uint64_t rows, std::uint64_t cols) {
  const std::string pad = rows == p.pes.units * p.tile ? "" : fmt::format("({},{})/", rows, cols);
  return pad + fmt::format("(({}{}:{}), ({}:1))", p.pes.levels, p.tile, cols, cols);
}

// Max pooling, or average pooling with `avg` (its arithmetic).
class Pool : public Problem {
 public:
  Pool(ConvShape s, core::DType dtype, std::optional<AvgPoolQuant> avg,
       std::optional<std::vector<std::uint8_t>> x, std::uint64_t seed)
      : s_(s), dtype_(dtype), avg_(std::move(avg)), x_(std::move(x)), seed_(seed) {}

  core::Errors check(const machine::MachineConfig& m) const override {
    core::Errors e;
    const char* name = avg_ ? "avgpool" : "maxpool";
    if (avg_) try {
        numeric::validate(avg_->out, 0);
      } catch (const numeric::QuantError& q) {
        e.push_back({"", q.what()});
      }
    if (m.pe.words_per_address > 1)
      e.push_back({"--machine", fmt::format("{} reads LM bytes one by one; machine '{}' packs {} per address",
                                            name, m.name, m.pe.words_per_address)});
    if (m.dram_channels() > 1)
      e.push_back({"--machine", fmt::format("{}'s windowed loads need one DRAM channel; machine '{}' has {}",
                                            name, m.name, m.dram_channels())});
    const std::uint64_t bytes = s_.n * s_.h * s_.w * s_.c + s_.gemm_m() * s_.c;
    if (bytes > m.dram.bytes)
      e.push_back({"--n", fmt::format("the input and output need {} bytes of DRAM, the machine has {}", bytes,
                                      m.dram.bytes)});
    return e;
  }

  Result<Plan> plan(const machine::MachineConfig& m) const override {
    PoolPlan p;
    p.pes = every_pe(m);
    const std::uint64_t taps = s_.r * s_.s, rows = s_.gemm_m();
    // Two buffers each of a tile's windows (C·R·S bytes a row) and results (C bytes a row), and for
    // the average two of its sums (C int32 a row).
    const std::uint64_t per_row = 2 * s_.c * (taps + 1 + (avg_ ? 4 : 0));
    p.tile = std::min(ceil_div(rows, p.pes.units), m.lm_bytes() / per_row);
    if (p.tile == 0)
      return core::Error{"--c", fmt::format("a row's windows ({} bytes, twice) do not fit the {}-byte LM",
                                            per_row, m.lm_bytes())};
    p.passes = ceil_div(rows, p.pes.units * p.tile);
    p.in_bytes = p.tile * s_.c * taps;
    // Estimate: two buffers overlap a pass's load with the one before's pool and store; the
    // busiest of the three sets the pace, the first load and the last pool and store add theirs.
    Plan out;
    const timing::CostModel cost(m);
    timing::TransferTime load, store;
    try {
      const std::uint64_t block = p.pes.units * p.tile;
      load = cost.load(layout::plan_load(
          layout::bind_or_throw(layout::parse_layout_or_throw(pool_tile_layout(p, block, s_.c * taps), m),
                                {block, s_.c * taps}, m, 1)));
      store = cost.store(layout::plan_gather(layout::bind_or_throw(
          layout::parse_layout_or_throw(pool_tile_layout(p, block, s_.c), m), {block, s_.c}, m, 1)));
    } catch (const layout::LayoutError& e) {
      return core::Error{"", e.what()};
    }
    const timing::UnitTime pool = cost.unit(timing::Unit::kCopy, p.in_bytes);
    const timing::UnitTime requant =
        avg_ ? cost.unit(timing::Unit::kRequant, p.tile * s_.c) : timing::UnitTime{};
    const std::uint64_t pace =
        std::max({load.duration() - load.latency, pool.busy, requant.busy, store.duration() - store.latency});
    out.estimated_cycles = static_cast<double>(load.duration() + (p.passes - 1) * pace + pool.duration() +
                                               requant.duration() + store.duration());
    out.description = fmt::format(
        "plan: {} output rows per PE in {} passes over {} PEs, {} windows of {} taps a row; LM {} of {} "
        "bytes",
        p.tile, p.passes, p.pes.units, s_.c, taps, per_row * p.tile, m.lm_bytes());
    out.mapping = p;
    return out;
  }

  Result<program::Program> program(const Plan& plan, const machine::MachineConfig& m) const override {
    const auto* mapping = std::any_cast<PoolPlan>(&plan.mapping);
    if (!mapping) return core::Error{"", "maxpool: the plan was not made by maxpool"};
    const PoolPlan& p = *mapping;
    const std::uint64_t taps = s_.r * s_.s, rows = s_.gemm_m(), block = p.pes.units * p.tile;
    program::Program prog;
    prog.tensors = {{"X", {s_.n, s_.h, s_.w, s_.c}, dtype_},
                    {"Y", {rows, s_.c}, avg_ ? avg_->out.out_dtype : dtype_}};
    // Buffers: two of windows, two of results, and for the average two of sums.
    const std::uint64_t in[2] = {0, p.in_bytes}, out[2] = {2 * p.in_bytes, 2 * p.in_bytes + p.tile * s_.c};
    const std::uint64_t sums[2] = {out[1] + p.tile * s_.c, out[1] + p.tile * s_.c * 5};
    const program::Window window = s_.window();
    auto load = [&](std::uint64_t pass) -> Result<program::Instr> {
      const std::uint64_t at = pass * block, count = std::min(block, rows - at);
      program::Load l;
      l.tensor = "X";
      try {
        l.layout = layout::parse_layout_or_throw(pool_tile_layout(p, count, s_.c * taps), m);
      } catch (const layout::LayoutError& e) {
        return core::Error{"", e.what()};
      }
      l.lm = in[pass % 2], l.offset = {at, 0}, l.shape = {count, s_.c * taps};
      // Padding never wins a maximum and adds nothing to a sum.
      l.pad = avg_ ? avg_->x_zero : static_cast<std::int32_t>(core::dtype_min(dtype_));
      l.window = window;
      return program::Instr{l};
    };
    auto first = load(0);
    if (!first) return first.errors();
    prog.instrs.push_back(first.value());
    for (std::uint64_t pass = 0; pass < p.passes; ++pass) {
      if (pass + 1 < p.passes) {
        auto next = load(pass + 1);
        if (!next) return next.errors();
        prog.instrs.push_back(next.value());
      }
      if (avg_) {
        prog.instrs.push_back(
            program::PoolSum{in[pass % 2], sums[pass % 2], p.tile, s_.c, taps, dtype_, avg_->x_zero});
        prog.instrs.push_back(requant_of_stage(avg_->out, sums[pass % 2], out[pass % 2], p.tile, s_.c));
      } else {
        prog.instrs.push_back(program::PoolMax{in[pass % 2], out[pass % 2], p.tile, s_.c, taps, dtype_});
      }
      const std::uint64_t at = pass * block, count = std::min(block, rows - at);
      program::Store st;
      st.tensor = "Y";
      try {
        st.layout = layout::parse_layout_or_throw(pool_tile_layout(p, count, s_.c), m);
      } catch (const layout::LayoutError& e) {
        return core::Error{"", e.what()};
      }
      st.lm = out[pass % 2], st.offset = {at, 0}, st.shape = {count, s_.c};
      prog.instrs.push_back(st);
    }
    return prog;
  }

  DramImage inputs() const override { return {{"X", x()}}; }

  Result<DramImage> reference() const override {
    return DramImage{{"Y", avg_ ? reference_avgpool(s_, *avg_, x()) : reference_maxpool(s_, dtype_, x())}};
  }

  void add_report_fields(const Plan& plan, const machine::MachineConfig&,
                         report::RunStats& stats) const override {
    const auto* p = std::any_cast<PoolPlan>(&plan.mapping);
    if (!p) return;
    stats.info["plan"] = plan.description;
    for (auto [key, value] : {std::pair{"n", s_.n},
                              {"h", s_.h},
                              {"w", s_.w},
                              {"c", s_.c},
                              {"r", s_.r},
                              {"s", s_.s},
                              {"out_h", s_.out_h()},
                              {"out_w", s_.out_w()},
                              {"tile", p->tile},
                              {"passes", p->passes}})
      stats.extra[key] = value;
  }

  std::vector<OutputArray> outputs() const override {
    return {{"Y", avg_ ? avg_->out.out_dtype : dtype_, {s_.n, s_.out_h(), s_.out_w(), s_.c}, std::nullopt}};
  }

 private:
  std::vector<std::uint8_t> x() const {
    if (x_) return *x_;
    core::Mt19937_64 gen(seed_);
    std::vector<std::uint8_t> v(s_.n * s_.h * s_.w * s_.c);
    for (auto& b : v) b = static_cast<std::uint8_t>(gen() >> 24);
    return v;
  }

  ConvShape s_;
  core::DType dtype_;
  std::optional<AvgPoolQuant> avg_;
  std::optional<std::vector<std::uint8_t>> x_;
  std::uint64_t seed_ = 1;
};

// The window's options, shared by both kernels.
std::vector<OptionSpec> window_options() {
  return {
      size_option("n", "Images in the batch", 1),
      size_option("h", "Input rows"),
      size_option("w", "Input columns"),
      size_option("c", "Channels"),
      size_option("r", "Window rows", 2),
      size_option("s", "Window columns", 2),
      size_option("stride", "Stride (rows and columns)", 2),
      {"pad",
       OptionKind::kText,
       "Padding: a number of pixels on every side, or same (ONNX SAME_UPPER)",
       OptionValue{std::string("0")},
       {},
       {},
       {}},
      size_option("dilation", "Dilation (rows and columns)", 1),
  };
}

OptionSpec seed_option() {
  return {"seed", OptionKind::kUnsigned, "Seed of the random input", OptionValue{std::uint64_t{1}}, {}, {},
          {}};
}

std::vector<OptionSpec> maxpool_options() {
  std::vector<OptionSpec> o = window_options();
  o.push_back(dtype_option("dtype", "The tensor's type: u8 or s8"));
  o.push_back(seed_option());
  return o;
}

std::vector<OptionSpec> avgpool_options() {
  std::vector<OptionSpec> o = window_options();
  o.push_back(dtype_option("dtype", "The input's type: u8 or s8"));
  o.push_back(dtype_option("dtype-out", "The output's type: u8 or s8"));
  o.push_back(
      zero_option("x-zero", "The input's zero point (also its padding value; default 128 for u8, 0 for s8)"));
  o.push_back(zero_option("out-zero", "The output's zero point (default 128 for u8, 0 for s8)"));
  o.push_back({"scale",
               OptionKind::kText,
               "The input's scale over the output's (the multiplier is scale / (r·s))",
               OptionValue{std::string("1")},
               {},
               {},
               {}});
  o.push_back(rounding_option());
  o.push_back(act_option());
  o.push_back(seed_option());
  return o;
}

Result<ConvShape> window_of(const Options& o) {
  ConvShape s;
  for (const char* name : {"h", "w", "c"})
    if (!o.unsigned_int(name)) return core::Error{option_flag(name), "is required"};
  s.n = *o.unsigned_int("n"), s.h = *o.unsigned_int("h"), s.w = *o.unsigned_int("w");
  s.c = s.k = *o.unsigned_int("c");
  s.r = *o.unsigned_int("r"), s.s = *o.unsigned_int("s");
  s.stride_h = s.stride_w = *o.unsigned_int("stride");
  s.dilation_h = s.dilation_w = *o.unsigned_int("dilation");
  if (core::Errors e = apply_pad_option(o.text("pad"), s); !e.empty()) return e;
  if (core::Errors e = conv_shape_errors(s); !e.empty()) return e;
  return s;
}

Result<std::unique_ptr<Problem>> make_maxpool(const Options& o, const machine::MachineConfig&) {
  Result<ConvShape> s = window_of(o);
  if (!s) return s.errors();
  return std::unique_ptr<Problem>(new Pool(s.value(), option_dtype(o.text("dtype")), std::nullopt,
                                           std::nullopt, o.unsigned_int("seed").value_or(1)));
}

Result<std::unique_ptr<Problem>> make_avgpool(const Options& o, const machine::MachineConfig&) {
  Result<ConvShape> s = window_of(o);
  if (!s) return s.errors();
  Result<double> scale = positive_number_option<double>(o, "scale");
  if (!scale) return scale.errors();
  AvgPoolQuant q;
  q.x_dtype = option_dtype(o.text("dtype"));
  q.x_zero = option_zero(o, "x-zero", q.x_dtype);
  q.out = seeded_output_stage(o);
  const double taps = static_cast<double>(s->r * s->s);
  q.out.multipliers = {numeric::quantize_multiplier(scale.value() / taps, q.out.rounding)};
  return std::unique_ptr<Problem>(
      new Pool(s.value(), q.x_dtype, q, std::nullopt, o.unsigned_int("seed").value_or(1)));
}

}  // namespace

namespace {

// What makes a pooling's shape or input unusable (errors start with the kernel's name).
core::Errors pool_input_errors(const char* kernel, const ConvShape& shape, std::size_t x_bytes) {
  if (core::Errors e = conv_shape_errors(shape); !e.empty()) return e;
  if (shape.k != shape.c || shape.groups != 1)
    return {{"", fmt::format("{}: k must be c, in one group", kernel)}};
  if (x_bytes != shape.n * shape.h * shape.w * shape.c)
    return {{"", fmt::format("{}: {} input bytes, expected {}", kernel, x_bytes,
                             shape.n * shape.h * shape.w * shape.c)}};
  return {};
}

}  // namespace

Result<std::unique_ptr<Problem>> maxpool_problem(const ConvShape& shape, core::DType dtype,
                                                 std::vector<std::uint8_t> x) {
  if (core::Errors e = pool_input_errors("maxpool", shape, x.size()); !e.empty()) return e;
  return std::unique_ptr<Problem>(new Pool(shape, dtype, std::nullopt, std::move(x), 1));
}

Result<std::unique_ptr<Problem>> avgpool_problem(const ConvShape& shape, const AvgPoolQuant& quant,
                                                 std::vector<std::uint8_t> x) {
  if (core::Errors e = pool_input_errors("avgpool", shape, x.size()); !e.empty()) return e;
  if (quant.out.multipliers.size() != 1)
    return core::Error{"", "avgpool: the output stage needs one multiplier"};
  return std::unique_ptr<Problem>(new Pool(shape, quant.x_dtype, quant, std::move(x), 1));
}

namespace {

// Every output pixel's window in output order (n, oh, ow): the NHWC offsets (of channel 0) of its taps
// inside the image.
template <typename F>
void for_each_window(const ConvShape& s, F&& f) {
  std::vector<std::uint64_t> taps;
  for (std::uint64_t n = 0; n < s.n; ++n)
    for (std::uint64_t oh = 0; oh < s.out_h(); ++oh)
      for (std::uint64_t ow = 0; ow < s.out_w(); ++ow) {
        taps.clear();
        for (std::uint64_t r = 0; r < s.r; ++r)
          for (std::uint64_t t = 0; t < s.s; ++t) {
            const std::uint64_t h = oh * s.stride_h + r * s.dilation_h,
                                w = ow * s.stride_w + t * s.dilation_w;
            if (h < s.pad_top || w < s.pad_left || h - s.pad_top >= s.h || w - s.pad_left >= s.w) continue;
            taps.push_back(((n * s.h + h - s.pad_top) * s.w + w - s.pad_left) * s.c);
          }
        f(taps);
      }
}

int tap_value(std::uint8_t b, bool is_signed) { return is_signed ? static_cast<std::int8_t>(b) : b; }

}  // namespace

std::vector<std::uint8_t> reference_maxpool(const ConvShape& s, core::DType dtype,
                                            const std::vector<std::uint8_t>& x) {
  const bool is_signed = dtype == core::DType::kInt8;
  std::vector<std::uint8_t> y;
  y.reserve(s.gemm_m() * s.c);
  for_each_window(s, [&](const std::vector<std::uint64_t>& taps) {
    for (std::uint64_t c = 0; c < s.c; ++c) {
      int best = is_signed ? -128 : 0;
      for (std::uint64_t at : taps) best = std::max(best, tap_value(x[at + c], is_signed));
      y.push_back(static_cast<std::uint8_t>(best));
    }
  });
  return y;
}

std::vector<std::uint8_t> reference_avgpool(const ConvShape& s, const AvgPoolQuant& q,
                                            const std::vector<std::uint8_t>& x) {
  const bool is_signed = q.x_dtype == core::DType::kInt8;
  std::vector<std::uint8_t> y;
  y.reserve(s.gemm_m() * s.c);
  for_each_window(s, [&](const std::vector<std::uint64_t>& taps) {
    for (std::uint64_t c = 0; c < s.c; ++c) {
      std::int64_t sum = 0;  // the taps outside the image hold the zero point: they add nothing
      for (std::uint64_t at : taps) sum += tap_value(x[at + c], is_signed) - q.x_zero;
      y.push_back(
          static_cast<std::uint8_t>(numeric::requantize_checked(static_cast<std::int32_t>(sum), q.out, 0)));
    }
  });
  return y;
}

Kernel maxpool_kernel() {
  return {
      "maxpool",
      "Max pooling of an int8/uint8 NHWC tensor (window, stride, padding, dilation), verified bit-exactly",
      maxpool_options(),
      "Write the output (Y) as .npy, N×out_h×out_w×C",
      {{"h", "7"}, {"w", "6"}, {"c", "3"}, {"r", "3"}, {"s", "3"}, {"pad", "same"}},
      &make_maxpool,
      "",
      /*tunable=*/false,
      /*plan_files=*/false};
}

Kernel avgpool_kernel() {
  return {
      "avgpool",
      "Average pooling of an int8/uint8 NHWC tensor (window sums, then a requant by scale / taps), verified "
      "bit-exactly",
      avgpool_options(),
      "Write the output (Y) as .npy, N×out_h×out_w×C",
      {{"h", "7"}, {"w", "6"}, {"c", "3"}, {"r", "3"}, {"s", "3"}, {"pad", "same"}},
      &make_avgpool,
      "",
      /*tunable=*/false,
      /*plan_files=*/false};
}

}  // namespace treesim::kernels
