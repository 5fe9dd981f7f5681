// Quantized int8 2-D convolution on the tree, NHWC:
//   Y[n, oh, ow, k] = requant(Σ_{c,r,s} (X[n, oh·sh + r·dh − pt, ow·sw + s·dw − pl, g·Cg + c] − x_zero)
//                              · (W[(c·R + r)·S + s, k] − w_zero) + bias[k]),   g = k / Kg,
// with X's zero point where the window falls outside the image. It runs as `groups` GEMMs on qgemm's
// pipeline (kernels/qgemm), one after the other in one program: group g's A is the input's windows
// over its Cg channels, loaded through a windowed load (DRAM reads each input element a tile's
// windows touch once; by im2col the windows' overlap is duplicate bytes on the links, by halos each
// unit receives its distinct elements and the PEs expand them: WindowLoads below),
// its B the group's Kg filters as a (Cg·R·S)×Kg matrix (ONNX's K×Cg×R×S weights, transposed), its C
// the group's Kg output channels. K is channel-major, so a K step of whole channels reads its input
// elements once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/gemm/gemm.h"
#include "kernels/kernel.h"
#include "sim/layout/tensor_layout.h"
#include "sim/program/instruction.h"

namespace treesim::kernels {

struct ConvShape {
  std::uint64_t n = 1, h = 1, w = 1, c = 1, k = 1, r = 1, s = 1;
  std::uint64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  std::uint64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  std::uint64_t groups = 1;

  std::uint64_t cg() const { return c / groups; }  // input channels per group
  std::uint64_t kg() const { return k / groups; }  // output channels per group
  std::uint64_t out_h() const;
  std::uint64_t out_w() const;
  // The GEMM of one group: M = N·out_h·out_w, K = R·S·Cg, N = Kg.
  std::uint64_t gemm_m() const { return n * out_h() * out_w(); }
  std::uint64_t gemm_k() const { return r * s * cg(); }
  // Multiply-accumulates of the convolution (every output times its R·S·Cg taps).
  std::uint64_t macs() const { return gemm_m() * k * gemm_k(); }
  // Group 0's windows of the input (the program moves c0 per group).
  program::Window window() const;
};

// A convolution's arithmetic besides its shape: types, zero points, the output stage (1 multiplier,
// or K: one per output channel), or int32 outputs (ONNX's ConvInteger: the accumulators, no bias).
struct ConvQuant {
  core::DType x_dtype = core::DType::kInt8, w_dtype = core::DType::kInt8;
  std::int32_t x_zero = 0, w_zero = 0;
  bool int32_out = false;
  numeric::OutputStage out;
};

// The operands: X as N·H·W·C bytes, W as (Cg·R·S)×K bytes, the bias (K values, or none).
struct ConvOperands {
  std::vector<std::uint8_t> x, w;
  std::vector<std::int32_t> bias;
};

// The kernel problem of a convolution with these operands (kernels/graph runs ONNX's convolutions with it);
// errors name what is wrong (options' names for the shape).
Result<std::unique_ptr<Problem>> conv2d_problem(const ConvShape& shape, const ConvQuant& quant,
                                                ConvOperands operands);

// Where a convolution's input and output lie besides DRAM. With `input`, its A tiles are windowed
// converts of it (its region stays untouched; the working buffers go below it); with
// `keep_output`, C stays in the LMs (not stored): above the input's region where it fits, else
// below it, the working buffers below both.
struct ConvLm {
  std::optional<LmTensor> input;
  bool keep_output = false;
};

// Sets them on a problem conv2d_problem made (its plan then follows them); false for any other
// problem.
bool set_conv_lm(Problem& problem, ConvLm lm);

// The output a plan of such a problem keeps in the LMs; none when it stores it.
std::optional<LmTensor> conv_output_in_lm(const Problem& problem, const Plan& plan,
                                          const machine::MachineConfig& machine);

// ONNX's SAME_UPPER padding of one axis: the output is ceil(size / stride), the extra pad at the end.
struct AxisPad {
  std::uint64_t begin = 0, end = 0;
};
AxisPad same_padding(std::uint64_t size, std::uint64_t kernel, std::uint64_t stride, std::uint64_t dilation);

// --pad: a number of pixels on every side, or "same" (SAME_UPPER, for the shape's sizes, kernel,
// strides and dilations); an error naming --pad otherwise.
core::Errors apply_pad_option(const std::string& text, ConvShape& shape);

// What makes the shape unusable, as (option, message) errors: zero sizes, channels not divisible by
// groups, a dilated kernel larger than the padded image, sizes whose products overflow.
core::Errors conv_shape_errors(const ConvShape& shape);

// The reference: a direct loop over every output and tap, in int64, then the output stage (one
// multiplier, or one per output channel), independent of the GEMM mapping and of the windows. X is
// N·H·W·C codes, W (Cg·R·S)×K, bias K values (empty: none). Without `out`, the int32 accumulators.
std::vector<std::int32_t> reference_conv2d(const ConvShape& shape, const std::vector<std::int32_t>& x,
                                           std::int32_t x_zero, const std::vector<std::int32_t>& w,
                                           std::int32_t w_zero, const std::vector<std::int32_t>& bias,
                                           const numeric::OutputStage* out);

// How a convolution's windowed A loads travel (program::Load::halo): the loader's im2col (every
// window slot down the tree), halo patches expanded by the PEs' copy units (each unit's distinct
// input elements once, in an LM patch beside the A buffers), or whichever the planner prices
// faster.
enum class WindowLoads { kAuto, kIm2col, kHalo };
// "auto", "im2col" or "halo"; an error naming --windows otherwise.
Result<WindowLoads> parse_window_loads(const std::string& text);

// A problem of seeded operands (drawn from `seed` when first needed) with this output stage and bias,
// its windows loaded as `windows` says (`treesim run conv2d`).
Result<std::unique_ptr<Problem>> conv2d_seeded_problem(const ConvShape& shape, ConvQuant quant,
                                                       std::vector<std::int32_t> bias, std::uint64_t seed,
                                                       WindowLoads windows);

// The planner's price of one plan's A tile loads each way (its first tile, through the cost
// model: the loads' stages, and with halos the copy unit's expansion), and the whole plan's
// estimate with each.
struct WindowPricing {
  double im2col_cycles = 0, halo_cycles = 0;  // the plan's estimate with each
  std::optional<double> lm_cycles;            // with the input in the LMs: its estimate (the only way)
  std::uint64_t patch_bytes = 0;              // LM bytes per PE of each of the two patch buffers
  std::string halo_refusal;  // why halos were not priced or cannot be used ("" when they can)
};
// With `halo` false, only im2col is priced (--windows im2col: the halo's traffic is not worked out).
// Any halo the plan already has is set aside first.
WindowPricing price_window_loads(const ConvShape& shape, const QgemmProblem& gemm, const QgemmPlan& plan,
                                 const machine::MachineConfig& machine, bool halo = true);

// The plan's A tiles as windowed converts of `input` held in the LMs: its first tile's conversion
// (window_convert.h, timed by the cost model) stands for every A load in the plan's estimate, which
// it sets (no halo patches).
WindowPricing price_lm_windows(const ConvShape& shape, const QgemmProblem& gemm, QgemmPlan& plan,
                               const LmTensor& input, const machine::MachineConfig& machine);

// Sets the plan's window loads by `mode` (auto: the cheaper estimate, im2col on a tie) and its
// estimate; an error naming --windows when halos are asked for and the patch does not fit.
// `price` (when given) receives the prices it chose by.
core::Errors choose_window_loads(const ConvShape& shape, const QgemmProblem& gemm, WindowLoads mode,
                                 QgemmPlan& plan, const machine::MachineConfig& machine,
                                 WindowPricing* price = nullptr);

}  // namespace treesim::kernels
