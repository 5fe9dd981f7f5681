// Sparse × dense on the tree: y = requant(A·x + bias) (SpMV) and C = requant(A·B + bias) (SpMM), A
// sparse int8 in an MLIR sparse_tensor encoding, x / B dense int8, int32 accumulation.
//
// The loader splits A's entries over the PEs (--partition rows | nnz | 2d), stores each PE's part
// as its own small matrix in the encoding (its rows and the columns it touches, renumbered from 0)
// and places those arrays as bytes in the PE's LM (sim/sparse/pe_block.h). x (or B) lives in DRAM
// once: a row gather sends each PE the x rows of its columns through the tree, each unit receiving
// its subtree's distinct rows once (sim/program/row_gather.h). One `sparse_mac` instruction then has
// every PE walk its arrays; PEs run in lock step, so the step lasts as long as the busiest PE's
// walk. With 2d, the PEs of one tree unit share a block of rows and a reduce sums their partial rows
// into the unit's first PE. The requant unit turns each PE's int32 rows into int8 and a row scatter
// sends every row up to its place in y (or C). The host neither gathers nor scatters anything.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/machine/machine_config.h"
#include "sim/numeric/requant.h"
#include "sim/program/instruction.h"
#include "sim/sparse/encoding.h"
#include "sim/sparse/partition.h"
#include "sim/sparse/pe_block.h"
#include "sim/sparse/storage.h"

namespace treesim::kernels {

// A with int8 values, the dense operand and the output stage.
struct SparseProblem {
  std::string matrix;          // where A came from, for the report ("pores_1.mtx", "random 40x30")
  sparse::Coo a;               // values are int8 codes, one triple per (row, col)
  std::uint64_t nonzeros = 0;  // triples whose value is not 0
  sparse::Encoding encoding;
  std::string encoding_name;  // as given ("csr", a map, ...)
  sparse::Partition partition = sparse::Partition::kRows;
  bool spmm = false;
  std::uint64_t n = 1;             // columns of B (1: x)
  std::vector<std::int8_t> b;      // cols × n, row-major
  std::int32_t b_zero = 0;         // x's / B's zero point
  std::vector<std::int32_t> bias;  // SpMV: one per row; SpMM: one per column; empty: none
  numeric::OutputStage out;        // one multiplier (per tensor)
  std::string placement_hint;      // said after an error of the options' encoding (" (--prune ...)")
};

// One PE's share: its rows (a range of global rows; local row i is row_begin + i), its columns
// (global indices, increasing; local column j is cols[j]) and its matrix over them.
struct PeShare {
  std::uint64_t pe = 0;
  std::uint64_t row_begin = 0, row_end = 0;
  std::vector<std::uint64_t> cols;
  sparse::SparseMatrix local;
  sparse::WalkWork work;
  std::uint64_t nonzeros = 0;
};

// How A is stored and split: the encoding and partition (the options', or a tuner's), and the
// passes (0: the fewest that fit the LMs, row blocks first). A row block's part on a PE (w entries,
// r rows) is cut, in column order and whole column groups (a group with more stays whole), into
// column tiles of at most min(C, max(⌈w / T⌉, 8·r)) entries, C = ⌈W / col_tiles⌉ with W the most
// entries any part has, and T the most ⌈entries / C⌉ of the row block's parts: the heaviest part
// into about col_tiles tiles, a lighter one into about as many as its row block takes passes (no
// tile smaller than eight times its rows), a part of few entries not at all.
struct SparseChoice {
  sparse::Encoding encoding;
  std::string encoding_name;  // as given ("csr", a map, ...)
  sparse::Partition partition = sparse::Partition::kRows;
  std::uint64_t row_blocks = 0, col_tiles = 0;  // both given, or both 0
};

// The options' choice: their encoding and partition, the fewest passes.
SparseChoice default_choice(const SparseProblem& p);

// A's blocks travel in rows of this many bytes (the block in the LM is padded to whole rows).
inline constexpr std::uint64_t kAChunk = 64;

// Where the loader puts everything: the shares, the grid (2d: grid_cols PEs of one unit of
// `reduce_level` share a row block) and the LM offsets, the same in every PE.
struct SparsePlacement {
  SparseChoice choice;  // with the row blocks and column tiles it has
  std::uint64_t pes = 0;
  // The passes run one after another, each loading its A blocks, x rows and bias into one of two
  // buffers (pass j's into buffer j mod 2, `buffer_bytes` apart) while the pass before walks the
  // other. Row block k takes block_passes[k] passes, as many as its PEs' parts have column tiles at
  // most: in its pass t, the PEs whose part has a tile t walk it and accumulate into the same int32
  // rows; the others idle. The row block's reduce, requant and row scatter follow its last pass,
  // and its bias (SpMV) sits in its own buffer, k mod 2.
  // shares[share_begin[j] .. share_begin[j + 1]) are pass j's, PE by PE (each names its PE); a
  // row block's first pass has one for every PE.
  std::vector<PeShare> shares;
  std::vector<std::uint64_t> share_begin{0, 0};
  std::vector<std::uint64_t> block_passes{1};
  std::uint64_t passes = 1, buffer_bytes = 0, bias_buffer_bytes = 0;
  // A in DRAM: every share's block, packed, in kAChunk-byte rows (share i's from row
  // a_chunk_begin[i]); a row gather sends each PE its own rows and no padding.
  std::vector<std::uint64_t> a_chunk_begin;
  std::uint64_t grid_rows = 1, grid_cols = 1;  // of one pass
  int reduce_level = -1;                       // 2d: the level whose units' PEs share a row block; else -1
  std::uint64_t block_bytes = 0;               // A's bytes per PE (the largest share's, padded)
  std::uint64_t largest_pe = 0, largest_pass = 0;  // where that share is
  std::uint64_t x_rows = 1;                        // x / B rows per PE (the most columns any share touches)
  std::uint64_t c_rows = 1;                        // output rows per PE
  std::uint64_t lm_a = 0, lm_x = 0, lm_bias = 0, lm_c = 0, lm_sum = 0, lm_y = 0, lm_end = 0;
  std::vector<std::uint64_t> storage_bytes;  // Σ over PEs, per level: positions, coordinates; then values
};

// The split alone, as `treesim sparse partition` prints it: `a` over `pes` PEs by `kind`'s rules
// (sim/sparse/partition.h), 2d with `grid_cols` PEs per row block, each share stored in `e`. Throws
// sparse::SparseError when a share cannot be stored in the encoding.
std::vector<PeShare> split_shares(const sparse::Coo& a, const sparse::Encoding& e, sparse::Partition kind,
                                  std::uint64_t pes, std::uint64_t grid_cols);
// 2d on `m`: the level whose units' PEs form a grid row, the one with the most PEs per unit not
// above √pes (the squarest grid the tree's reduce can sum); -1 when none has more than one PE.
int sparse_grid_level(const machine::MachineConfig& m);
// 2d on `m`: the PEs of one grid row (those of a unit at sparse_grid_level; 1 when it is -1).
std::uint64_t sparse_grid_cols(const machine::MachineConfig& m);

// Splits and stores A over the machine's PEs by `c`: in its row blocks and column tiles, or in as
// few passes as fit the LMs. Throws sparse::SparseError when a share cannot be stored in the
// encoding (an ELL row or an n:m block with too many nonzeros).
SparsePlacement place_sparse(const SparseProblem& p, const SparseChoice& c, const machine::MachineConfig& m);
// The most row blocks a choice can have: a row per grid row and pass.
std::uint64_t most_row_blocks(const SparseProblem& p, const SparseChoice& c, const machine::MachineConfig& m);

// The program: DRAM tensors A (uint8, every share's block in kAChunk-byte rows), x / B (int8, cols × n), bias
// (SpMV: int32 rows × 1; SpMM: int32 n) and y / C (int8, rows × n).
program::Program build_sparse_program(const SparseProblem& p, const SparsePlacement& s,
                                      const machine::MachineConfig& m);
std::string sparse_x_name(const SparseProblem& p);  // "x" or "B"
std::string sparse_y_name(const SparseProblem& p);  // "y" or "C"
// The DRAM image of those inputs.
std::map<std::string, std::vector<std::uint8_t>> sparse_inputs(const SparseProblem& p,
                                                               const SparsePlacement& s);
// The host reference from the dense matrix (a plain loop, independent of the storage).
std::vector<std::uint8_t> sparse_reference(const SparseProblem& p);

}  // namespace treesim::kernels
