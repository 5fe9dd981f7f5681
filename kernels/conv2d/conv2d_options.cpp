// conv2d's options (`treesim run conv2d`), the problem they make (seeded operands and output stage)
// and the kernel's registration.
#include <fmt/format.h>

#include "kernels/conv2d/conv2d.h"
#include "kernels/qgemm/qgemm_kernel.h"
#include "kernels/seeded_options.h"
#include "sim/core/mt19937_64.h"
#include "sim/numeric/fixed_point.h"

namespace treesim::kernels {
namespace {

std::vector<OptionSpec> conv2d_options() {
  return {
      size_option("n", "Images in the batch", 1),
      size_option("h", "Input rows"),
      size_option("w", "Input columns"),
      size_option("c", "Input channels"),
      size_option("k", "Output channels"),
      size_option("r", "Kernel rows", 3),
      size_option("s", "Kernel columns", 3),
      size_option("stride", "Stride (rows and columns)", 1),
      {"pad",
       OptionKind::kText,
       "Padding: a number of pixels on every side, or same (ONNX SAME_UPPER: the output is ceil(size / "
       "stride), an odd extra pixel at the end)",
       OptionValue{std::string("0")},
       {},
       {},
       {}},
      size_option("dilation", "Dilation (rows and columns)", 1),
      {"windows",
       OptionKind::kChoice,
       "How the input's windows travel: im2col (the loader expands them; the links carry every window "
       "slot), halo (each PE receives its distinct input elements and its copy unit expands them), or "
       "auto (whichever the planner prices faster)",
       OptionValue{std::string("auto")},
       {"auto", "im2col", "halo"},
       {},
       {}},
      size_option("groups",
                  "Groups: 1 (dense), C (depthwise, with K = C·multiplier), or any divisor of C and K", 1),
      dtype_option("dtype-x", "The input's type: u8 or s8"),
      dtype_option("dtype-w", "The weights' type: u8 or s8"),
      dtype_option("dtype-out", "The output's type: u8 or s8"),
      zero_option("x-zero", "The input's zero point (also its padding value; default 128 for u8, 0 for s8)"),
      zero_option("w-zero", "The weights' zero point (default 128 for u8, 0 for s8)"),
      zero_option("out-zero", "The output's zero point (default 128 for u8, 0 for s8)"),
      {"per-channel",
       OptionKind::kFlag,
       "One requant multiplier per output channel",
       std::nullopt,
       {},
       {},
       {}},
      rounding_option(),
      {"no-bias", OptionKind::kFlag, "No bias", std::nullopt, {}, {}, {}},
      act_option(),
      {"seed",
       OptionKind::kUnsigned,
       "Seed of the random operands",
       OptionValue{std::uint64_t{1}},
       {},
       {},
       {}},
  };
}

// The group's GEMM of a convolution: M output pixels, K = Cg·R·S taps, N = Kg filters.
Result<std::unique_ptr<Problem>> make_conv2d(const Options& o, const machine::MachineConfig&) {
  ConvShape p;
  for (auto [field, name] : {std::pair{&p.h, "h"}, {&p.w, "w"}, {&p.c, "c"}, {&p.k, "k"}})
    if (!o.unsigned_int(name)) return core::Error{option_flag(name), "is required"};
  p.n = *o.unsigned_int("n"), p.h = *o.unsigned_int("h"), p.w = *o.unsigned_int("w");
  p.c = *o.unsigned_int("c"), p.k = *o.unsigned_int("k");
  p.r = *o.unsigned_int("r"), p.s = *o.unsigned_int("s");
  p.stride_h = p.stride_w = *o.unsigned_int("stride");
  p.dilation_h = p.dilation_w = *o.unsigned_int("dilation");
  p.groups = *o.unsigned_int("groups");
  if (core::Errors e = apply_pad_option(o.text("pad"), p); !e.empty()) return e;
  Result<WindowLoads> windows = parse_window_loads(o.text("windows"));
  if (!windows) return windows.errors();
  if (core::Errors e = conv_shape_errors(p); !e.empty()) return e;

  ConvQuant q;
  q.x_dtype = option_dtype(o.text("dtype-x"));
  q.w_dtype = option_dtype(o.text("dtype-w"));
  q.x_zero = option_zero(o, "x-zero", q.x_dtype);
  q.w_zero = option_zero(o, "w-zero", q.w_dtype);
  q.out = seeded_output_stage(o);
  // The multipliers and the bias are drawn at once from their own stream (K values), so that the
  // program, which holds depthwise groups' multipliers, is the same with or without the operands.
  const std::uint64_t seed = o.unsigned_int("seed").value_or(1);
  core::Mt19937_64 gen(seed ^ 0x9e3779b97f4a7c15ULL);
  const double base = seeded_scale(p.gemm_k());
  if (o.flag("per-channel")) {
    for (std::uint64_t c = 0; c < p.k; ++c)
      q.out.multipliers.push_back(numeric::quantize_multiplier(
          base * (0.5 + static_cast<double>(gen() % 1000) / 1000.0), q.out.rounding));
  } else {
    q.out.multipliers.push_back(numeric::quantize_multiplier(base, q.out.rounding));
  }
  std::vector<std::int32_t> bias;
  if (!o.flag("no-bias"))
    for (std::uint64_t c = 0; c < p.k; ++c) bias.push_back(static_cast<std::int32_t>(gen() % 65536) - 32768);
  return conv2d_seeded_problem(p, std::move(q), std::move(bias), seed, windows.value());
}

}  // namespace

Kernel conv2d_kernel() {
  return {"conv2d",
          "Quantized int8 2-D convolution (NHWC, stride, padding, dilation, groups), verified bit-exactly",
          conv2d_options(),
          "Write the output (C) as .npy, N×out_h×out_w×K",
          {{"h", "6"}, {"w", "5"}, {"c", "3"}, {"k", "4"}, {"pad", "same"}},
          &make_conv2d,
          "",
          /*tunable=*/true,
          /*plan_files=*/false};
}

}  // namespace treesim::kernels
