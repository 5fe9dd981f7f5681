// One PE's sparse matrix as bytes in its LM, the form the loader places and the PE's sparse walk
// reads: a header of little-endian uint64 counts — rows, cols, then per level the positions and
// coordinates it stores, then the values — and after it each array, 8-byte aligned, in level order
// (positions, coordinates), then the int8 values. Positions and coordinates take the encoding's
// widths (posWidth / crdWidth bits, 64 when native), so the LM holds exactly what the encoding
// stores.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/sparse/storage.h"
#include "sim/sparse/walk.h"

namespace treesim::sparse {

// The bytes of `m`, whose values are the int8 codes (with_values).
std::vector<std::uint8_t> pack_block(const SparseMatrix& m);
// The bytes the block of `m` takes (pack_block(m).size()).
std::uint64_t block_bytes(const SparseMatrix& m);

// The matrix back from `bytes` (at most `size` of them readable) in encoding `e`: the counts must
// fit the bytes and agree with the encoding's level sizes, and the arrays must pass validate().
// Throws SparseError naming what is wrong.
SparseMatrix unpack_block(const std::uint8_t* bytes, std::uint64_t size, const Encoding& e);

// The work of walking `m` (walk.h).
WalkWork walk_work(const SparseMatrix& m);

}  // namespace treesim::sparse

namespace treesim::sparse {

// What a PE's walk does with its block: Y (int32, rows × n, row-major) += A · (B − b_zero), B int8
// cols × n row-major, every sum wrapping modulo 2^32 as the PE's adders do. A's values are the
// int8 codes. Returns the walk's work.
WalkWork multiply_block(const SparseMatrix& a, const std::int8_t* b, std::uint64_t n, std::int32_t b_zero,
                        std::int32_t* y);

}  // namespace treesim::sparse
