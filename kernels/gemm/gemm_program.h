// One schedule for the GEMM kernels (qgemm, tgemm): per pass over C blocks, stream K in
// double-buffered steps (load A and B tiles, MAC), reduce partial sums where K is split,
// requantize, store the C block in row pieces spread over the next pass. What differs between the
// kernels is B's path, a hook: how a step's B tile travels (int8, or packed trits decoded in every
// PE into the MAC's buffer) and which MAC reads it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kernels/gemm/gemm.h"
#include "sim/program/instruction.h"

namespace treesim::kernels {

// A step's MAC, for the B path to turn into its instruction: LM offsets of A, of the B buffer the
// MAC reads, of the accumulators, and the tile.
struct MacTile {
  std::uint64_t a = 0, b = 0, c = 0;
  std::uint64_t m = 0, n = 0, k = 0;
  bool accumulate = false;
};

class BPath {
 public:
  virtual ~BPath() = default;
  // B's tensor in DRAM: its name and element type. Its rows hold weights_per_row() weights of K
  // each (packed along K), so a K range [k0, k0 + bk) is rows [k0 / t, ceil((k0 + bk) / t)).
  virtual std::string tensor() const = 0;
  virtual core::DType dtype() const = 0;
  virtual std::uint64_t weights_per_row() const { return 1; }
  virtual std::int32_t pad() const = 0;  // the byte that pads B's tiles (adds nothing to a sum)
  // Whether a step loads B before A (a packed tile whose decode then need not wait for A's load).
  virtual bool loads_before_a() const { return false; }
  // Where global step `step`'s tile lands, and where its MAC reads B.
  virtual std::uint64_t load_lm(std::uint64_t step) const = 0;
  virtual std::uint64_t mac_lm(std::uint64_t step) const { return load_lm(step); }
  // The instruction (if any) that turns step `step`'s loaded tile into the MAC's buffer, issued
  // after the MAC of the step before so that it overlaps it.
  virtual std::optional<program::Instr> decode(std::uint64_t /*step*/) const { return std::nullopt; }
  virtual program::Instr mac(const MacTile& t) const = 0;
};

// The program: tensors A, B (as `b` names it), C and, when the problem has them, bias, multiplier
// and shift; C holds the result after the run. Throws QgemmError on a bad problem or operands.
program::Program build_gemm_program(const QgemmProblem& prob, const QgemmPlan& plan,
                                    const machine::MachineConfig& m, const GemmOperands& operands,
                                    const BPath& b);

}  // namespace treesim::kernels
