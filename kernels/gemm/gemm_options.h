// The options qgemm and tgemm share, with their weight operand named (B, or tgemm's W), and what a
// seeded problem draws after its operands: per-channel multipliers and the bias.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/gemm/gemm.h"
#include "kernels/kernel.h"
#include "kernels/seeded_options.h"
#include "sim/core/mt19937_64.h"
#include "sim/numeric/fixed_point.h"

namespace treesim::kernels {

// `more` after `options`, in order.
inline void append(std::vector<OptionSpec>& options, std::vector<OptionSpec> more) {
  for (OptionSpec& o : more) options.push_back(std::move(o));
}

// An option with no default and no choices.
OptionSpec plain_option(const char* name, OptionKind kind, const char* help);
// --m, --n, --k, their help naming the weight operand `w` ("B" or "W").
std::vector<OptionSpec> gemm_size_options(const std::string& w);
OptionSpec seed_option();  // --seed, 1 by default
// --layout-a, --layout-<w>, --layout-c.
std::vector<OptionSpec> gemm_layout_options(const std::string& w);

// How a GEMM's weight operand travels: int8 B (qgemm), or ternary W in one of the codecs (tgemm).
enum class WeightPath { kInt8, kTernary };
// Every option of a GEMM kernel: sizes, types and zero points, the output stage (per-channel,
// rounding, bias, activation), the seed, the operand files, the layouts and --out-dtype. The weight
// path adds its own: B's type and zero point and C as the int32 accumulators (int8), or W's encoding
// (ternary: W is −1/0/+1 with zero point 0).
std::vector<OptionSpec> gemm_options(WeightPath path);

// A seeded GEMM's problem from its options (--m, --n, --k, types, zero points, the output stage):
// sizes checked against the DRAM before anything is drawn, one multiplier of `scale(K)` (or N of
// them with --per-channel, which the drawn ones replace). The int8 path also reads B's type and
// zero point and --dtype-out s32 (the int32 accumulators: no bias, no requant).
Result<QgemmProblem> seeded_gemm_problem(const Options& o, WeightPath path, double (*scale)(std::uint64_t k),
                                         const machine::MachineConfig& machine);

// Whether the operands come from files (--a, --<w>, --quant or --bias given) rather than --seed.
bool operands_from_files(const Options& options, const std::string& w);

// A GEMM kernel's registration: plan files and tuning, C written as .npy, a small example of
// `m`×`n`×`k` per channel; `compare` the option whose "all" compares its choices ("" for none).
Kernel gemm_kernel(const char* name, const char* summary, std::vector<OptionSpec> options, const char* k,
                   Result<std::unique_ptr<Problem>> (*make)(const Options&, const machine::MachineConfig&),
                   const char* compare);

// N per-channel multipliers around `base` (0.5 to 1.5 times it), then, with a bias, N int32 bias
// values as bytes: drawn in this order from `gen`, after the operands.
std::vector<numeric::QuantizedMultiplier> draw_channel_multipliers(core::Mt19937_64& gen, std::uint64_t n,
                                                                   double base, numeric::Rounding rounding);
std::vector<std::uint8_t> draw_bias(core::Mt19937_64& gen, std::uint64_t n);

}  // namespace treesim::kernels
