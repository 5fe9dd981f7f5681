// Ternary-weight GEMM on the tree: C[M×N] = requant(A[M×K] · W[K×N] + bias), W in {−1, 0, +1}.
//
// The planner and the schedule are the GEMM core's (kernels/gemm/gemm.h), with W in B's place: the same
// level assignments, C tiles, K steps and software pipeline. What differs is how W travels: packed
// along K (DPT or base 3: 5 weights per byte, BCT: 4, or unpacked int8) from DRAM through the tree
// into a second pair of LM buffers, where each PE decodes a step's tile into the int8 weights the
// ternary MAC reads. The decode of step s+1 runs while the MACs of step s do. The planner sees the
// smaller W tiles (less traffic, more room in the LM) and the decoder as a third pipeline stage, so
// its best tiling differs from qgemm's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/gemm/gemm.h"
#include "sim/numeric/ternary_codec.h"

namespace treesim::kernels {

enum class WeightEncoding { kDpt, kBct, kBase3, kInt8 };
inline constexpr WeightEncoding kWeightEncodings[] = {WeightEncoding::kDpt, WeightEncoding::kBct,
                                                      WeightEncoding::kBase3, WeightEncoding::kInt8};
const char* to_string(WeightEncoding e);  // "dpt", "bct", "base3", "int8"
// Weights per byte as W travels: 5, 4, 5, 1.
std::uint64_t weights_per_byte(WeightEncoding e);
// The codec that decodes it (not for kInt8).
numeric::TernaryCodec codec_of(WeightEncoding e);

// Marks a qgemm problem as ternary with W in this encoding (B int8, zero point 0).
void set_weight_encoding(QgemmProblem& problem, WeightEncoding e);
// The encoding set_weight_encoding marked a ternary problem with.
WeightEncoding weight_encoding(const QgemmProblem& problem);

// W (row-major K×N weights −1/0/+1) as it lies in DRAM: for the packed encodings a row-major
// ceil(K/t)×N matrix of bytes whose byte (r, c) holds weights (t·r + s, c) in slot s (trit w + 1,
// padded with weight 0 past K); for kInt8 the weights themselves. @pre every weight is −1, 0 or 1.
std::vector<std::uint8_t> pack_weights(const std::vector<std::int8_t>& w, std::uint64_t k, std::uint64_t n,
                                       WeightEncoding e);
// The inverse, with the plain codec (numeric::decode_trits), as the host reference reads W.
// Throws numeric::TernaryError for a byte the codec rejects.
std::vector<std::int8_t> unpack_weights(const std::vector<std::uint8_t>& bytes, std::uint64_t k,
                                        std::uint64_t n, WeightEncoding e);
// The byte of t zero weights: what a packed tile is padded with past K.
std::uint8_t zero_weights_byte(WeightEncoding e);
// W's DRAM bytes.
std::uint64_t weight_bytes(std::uint64_t k, std::uint64_t n, WeightEncoding e);

// The program: tensors A (M×K), W (as pack_weights lays it out; uint8, or int8 for kInt8), C, and
// when used bias, multiplier and shift. C holds the result after the run.
program::Program build_tgemm_program(const QgemmProblem& problem, const QgemmPlan& plan,
                                     const machine::MachineConfig& machine, WeightEncoding e);

// W bytes the program reads from DRAM: each step's tile once per pass.
std::uint64_t weight_dram_bytes(const QgemmProblem& problem, const QgemmPlan& plan, WeightEncoding e);

}  // namespace treesim::kernels
