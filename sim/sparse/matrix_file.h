// Matrix files read into triples: Matrix Market (.mtx), Harwell-Boeing (.rua, .rsa, .rra, .psa, ...)
// and METIS graphs (.graph, read as a pattern matrix: one entry per adjacency). Errors are
// SparseErrors of one line, "NAME:LINE: what was expected".
#pragma once

#include <cstdint>
#include <string>

#include "sim/sparse/storage.h"

namespace treesim::sparse {

// Matrix files are read whole; past this they are refused before a byte is read (README, Limits).
inline constexpr std::uint64_t kMaxMatrixFileBytes = std::uint64_t{256} << 20;  // 256 MiB
// Rows, columns and entries past this are refused: a typo, or more than the simulator can hold.
inline constexpr std::uint64_t kMaxMatrixDim = std::uint64_t{1} << 31;
inline constexpr std::uint64_t kMaxMatrixEntries = std::uint64_t{1} << 27;
// A header's rows and columns are also held against its entries: at most
// max(kDimAllowance, kDimsPerEntry × entries) each. Every consumer keeps a few words per row and
// column (row counts, CSR positions, x and y), so a header may declare no more rows than its
// entries could use; a 64-byte file cannot ask for gigabytes. (Rows without entries are allowed,
// within the allowance.)
inline constexpr std::uint64_t kDimAllowance = std::uint64_t{1} << 20;
inline constexpr std::uint64_t kDimsPerEntry = 16;

// Why a declared rows × cols matrix of `entries` entries is refused ("" if it is not): over
// kMaxMatrixDim, or over the allowance its entries give (above). The readers call it on the header,
// before they allocate anything.
std::string declared_size_error(std::uint64_t rows, std::uint64_t cols, std::uint64_t entries);

enum class MatrixFormat { kMatrixMarket, kHarwellBoeing, kMetisGraph };

// What a file says about its values, for the docs and `sparse show`.
struct MatrixFile {
  Coo coo;
  std::string kind;  // "coordinate real symmetric", "RSA", "graph"
  bool pattern = false;
};

MatrixFile read_matrix_market(const std::string& text, const std::string& name);
MatrixFile read_harwell_boeing(const std::string& text, const std::string& name);
MatrixFile read_metis_graph(const std::string& text, const std::string& name);

// By extension: .mtx, .graph, else Harwell-Boeing for .rua/.rsa/.rra/.pua/.psa (any case); throws
// SparseError for another.
MatrixFormat format_of(const std::string& path);
// Reads `path` (io::read_input_file's checks and cap) in the format of its extension.
MatrixFile read_matrix_file(const std::string& path);

}  // namespace treesim::sparse
